"""The vector index's int8 scoring in two stages: every sketch candidate on its LEAD leading principal axes, then the
best KEEP of them on the other axes too, against one pass over all axes for every candidate.

    python bench/pca_codes.py [--library ~/.cache/trove-bench/scale-1000000/library.db] [--keep 4096,8192,16384]

On the side index of a library bench/scale.py built (format 4: int8 codes of each vector's projections on the
principal axes; the sketch's real candidates for SciFact's test queries), in this process:
  - floor: numpy's exact cosine over every stored vector (the file's float32 matrix, memory-mapped), top 10 chunks;
  - one pass: every candidate scored on all axes (what format 3 did with codes of the vectors themselves);
  - two stages at each KEEP (the shipped one is vector_index.KEEP).
Each query runs the arrangements in a rotating order; the time is the scoring and the choice of the windows to
rescore (the sketch's candidates are found once per query, outside the timing), then the same exact rescoring gives
the top 10. Recall@10 is against the floor's top 10, over the first 100 queries (LEAD and KEEP were chosen on them,
2026-12-07) and over the other 200 alone (held out), with 95 % Wilson intervals over the queries' hits.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
from _common import machine, percentile, save
from _qa_stats import wilson
from scale import bench_index, index_bench_args

from desktop_app.core.store.side import vector_index as vi

TUNED_ON = 100
K = 10


def exact_top(index: vi.Loaded, matrix: np.ndarray, query: np.ndarray) -> set[int]:
    sims = np.concatenate([matrix[i : i + 100_000] @ query for i in range(0, len(matrix), 100_000)])
    return {c for c, _ in vi.rescore(index, query, np.argpartition(-sims, vi.RESCORE)[: vi.RESCORE])[:K]}


def one_pass(index: vi.Loaded, found: np.ndarray, query: np.ndarray, count: int) -> np.ndarray:
    weights, width = index.weights(query), index.lead.shape[1]
    score = index.code_scores(index.lead, found, weights[:width]) + \
        index.code_scores(index.tail, found, weights[width:])
    return found[np.argpartition(-score, count - 1)[:count]]


def two_stages(keep: int):
    def run(index: vi.Loaded, found: np.ndarray, query: np.ndarray, count: int) -> np.ndarray:
        shipped = vi.KEEP
        vi.KEEP = keep
        try:
            return index.best(found, query, count)
        finally:
            vi.KEEP = shipped
    return run


def main() -> None:
    ap = index_bench_args(__doc__, "pca_codes", 1_000_000, 300)
    ap.add_argument("--keep", default="4096,8192,16384")
    args = ap.parse_args()
    qvecs, store, index = bench_index(args)
    matrix = np.memmap(vi.index_path(Path(args.library)), dtype=np.float32, mode="r", offset=vi._DATA,
                       shape=(len(index), index.dim))
    arms = {"one_pass": one_pass, **{f"keep_{k}": two_stages(int(k)) for k in args.keep.split(",")}}
    times: dict[str, list[float]] = {name: [] for name in ["floor", *arms]}
    hits: dict[str, list[int]] = {name: [] for name in arms}
    count = max(vi.RESCORE, K * vi.MAX_WINDOWS)
    load_before = os.getloadavg()
    candidates = []
    for i, q in enumerate(qvecs[: args.queries]):
        query = np.asarray(q, dtype=np.float32)
        started = time.perf_counter()
        truth = exact_top(index, matrix, query)
        times["floor"].append(time.perf_counter() - started)
        found = index.candidates(query)
        candidates.append(len(found))
        names = list(arms)
        for name in names[i % len(names):] + names[: i % len(names)]:
            started = time.perf_counter()
            rows = arms[name](index, found, query, count)
            times[name].append(time.perf_counter() - started)
            hits[name].append(len(truth & {c for c, _ in vi.rescore(index, query, rows)[:K]}))
    store.close()
    out: dict = {"machine": machine(), "library": args.library, "vectors": len(index), "dim": index.dim,
                 "lead": index.lead.shape[1], "shipped_keep": vi.KEEP, "queries": len(candidates),
                 "candidates_p50": int(np.median(candidates)), "load_before": load_before,
                 "load_after": os.getloadavg(),
                 "ms": {name: {"p50": round(percentile([t * 1e3 for t in v], 50), 2),
                               "p95": round(percentile([t * 1e3 for t in v], 95), 2)} for name, v in times.items()},
                 "recall_at_10": {}}
    for name, got in hits.items():
        tuned, held = got[:TUNED_ON], got[TUNED_ON:]
        out["recall_at_10"][name] = {
            "tuned_on": round(sum(tuned) / (K * len(tuned)), 4),
            "held_out": round(sum(held) / (K * len(held)), 4) if held else None,
            "held_out_95": [round(x, 4) for x in wilson(sum(held), K * len(held))]}
    for name, row in out["ms"].items():
        rec = out["recall_at_10"].get(name, {})
        print(f"{name:>12}: p50 {row['p50']:7.2f}  p95 {row['p95']:7.2f} ms   recall@10 tuned-on "
              f"{rec.get('tuned_on', 1.0)}  held-out {rec.get('held_out', 1.0)}")
    save("pca_codes", out, args.json)


if __name__ == "__main__":
    main()
