"""The SQLite vector side index's breadth, swept on the tuning queries only.

    python bench/sketch_sweep.py --chunks 1000000 --shares 0.04,0.06,0.08 --rescore 200,400

For each (CANDIDATES share, RESCORE) it times dense_candidates (as semantic search calls it: k = 10) over the
first --tune SciFact test queries (the ones the settings are chosen on, bench/scale.py's TUNED_ON) and counts
recall@10 against exact search over every stored vector, for the whole library and with a folder filter, and how
much of it the sketch's candidates alone keep (the int8 and rescoring stages cannot find what the sketch left
out). The library is bench/scale.py's cached one (built there if missing). The queries the result is reported
on (bench/scale.py --recall-queries train: SciFact's 809 training claims) are never read here.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from _common import ROOT, percentile, save
from scale import K, _folder_chunks, cached_library, exact_top, open_library, say, stored_vectors
from server_scale import load_library


def sweep(where: str, qvecs, shares: list[float], rescores: list[int]) -> dict:
    from desktop_app.core.store.rows import Filters
    from desktop_app.core.store.side import vector_index

    vector_index.REBUILD_QUIET = 0.0  # the bench library is settled: build the vector index now if it is missing
    store, _ = open_library("sqlite", where)  # (the keyword side index is not needed here)
    store.dense_candidates(qvecs[0], K)
    store.__dict__["_vector_index"].wait()
    loaded = store.__dict__["_vector_index"]._index  # the loaded vector_index.Loaded
    assert loaded is not None, "the vector side index did not load"
    folder = store.folders()[0]
    by_folder = Filters(folder_ids=(folder.id,))
    ids, mat = stored_vectors(store, "sqlite")
    in_folder = np.isin(ids, _folder_chunks(store, "sqlite", folder.id))
    truths = {name: [set(exact_top(ids, mat, q, K, mask)) for q in qvecs]
              for name, mask in (("all", None), ("folder", in_folder))}
    row_ids = loaded.keys // vector_index.MAX_WINDOWS
    allowed_rows = np.isin(row_ids, ids[in_folder])
    kept = vector_index.CANDIDATES, vector_index.RESCORE
    out: dict = {"chunks": len(ids), "queries": len(qvecs), "settings": []}
    try:
        for share in shares:
            vector_index.CANDIDATES = share
            sketch_kept = {}
            for name, allowed in (("all", None), ("folder", allowed_rows)):
                hits = 0
                for q, truth in zip(qvecs, truths[name], strict=True):
                    hits += len(truth & set(row_ids[loaded.candidates(q, allowed)].tolist()))
                sketch_kept[name] = round(hits / (K * len(qvecs)), 4)
            for rescore in rescores:
                vector_index.RESCORE = rescore
                row: dict = {"share": share, "rescore": rescore, "sketch_keeps": sketch_kept}
                for name, filters in (("all", None), ("folder", by_folder)):
                    hits, times = 0, []
                    for q, truth in zip(qvecs, truths[name], strict=True):
                        started = time.perf_counter()
                        got = store.dense_candidates(q, K, filters=filters)
                        times.append((time.perf_counter() - started) * 1000)
                        hits += len(truth & {c for c, _ in got})
                    row[name] = {"recall_at_10": round(hits / (K * len(qvecs)), 4),
                                 "p50_ms": round(percentile(times, 50), 1), "p95_ms": round(percentile(times, 95), 1)}
                say(str(row))
                out["settings"].append(row)
    finally:
        vector_index.CANDIDATES, vector_index.RESCORE = kept
        store.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chunks", type=int, default=1_000_000)
    ap.add_argument("--tune", type=int, default=100, help="the first N test queries (the tuning split)")
    ap.add_argument("--shares", default="0.04,0.06,0.08")
    ap.add_argument("--rescore", default="200,400")
    ap.add_argument("--folders", type=int, default=10)
    ap.add_argument("--vectors", default=str(Path.home() / ".cache" / "trove-bench" / "scifact_minilm_1500.npz"))
    ap.add_argument("--dataset", default=str(ROOT.parent / "shared" / "eval" / "scifact"))
    ap.add_argument("--work", default=str(Path.home() / ".cache" / "trove-bench"))
    ap.add_argument("--json", help="results file (default bench/results/sketch_sweep_<N>.json)")
    args = ap.parse_args()
    args.rebuild, args.build_only = False, False
    _, _, _, qvecs = load_library(Path(args.vectors), Path(args.dataset))
    qvecs = qvecs[: args.tune]
    work = Path(args.work).expanduser() / f"scale-{args.chunks}"
    work.mkdir(parents=True, exist_ok=True)
    where = str(work / "library.db")
    build = cached_library("sqlite", args, where, work / "sqlite.json")
    result = sweep(where, qvecs, [float(v) for v in args.shares.split(",")],
                   [int(v) for v in args.rescore.split(",")])
    result["build"] = build
    save(f"sketch_sweep_{args.chunks}", result, args.json)


if __name__ == "__main__":
    sys.setrecursionlimit(10_000)
    main()
