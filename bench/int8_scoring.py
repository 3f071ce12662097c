"""The vector index's int8 scoring step alone: the sketch's candidates' leading codes dotted with a query's weights.

    python bench/int8_scoring.py [--library ~/.cache/trove-bench/scale-100000/library.db] [--queries 100]

On the side index of a library bench/scale.py built (its real codes and its real sketch candidates for SciFact's
test queries; since format 4 the codes of every candidate's LEAD leading principal axes, the step all candidates
go through), in this process, each query both ways in alternating order:
  - floor: the bare numpy expression the index used until 2026-12-07, fresh arrays per block of 8192
    (`lead[rows].astype(np.float32) @ weights`);
  - ours: `Loaded.code_scores` (np.take / copyto / dot into each thread's reused buffers).
Both wall and CPU time (thread_time: the machine's other load counts less), p50 / p95, and that the scores are equal.
"""

from __future__ import annotations

import os
import time

import numpy as np
from _common import machine, percentile, save
from scale import MODEL, bench_index, index_bench_args


def floor(codes: np.ndarray, rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return np.concatenate([codes[rows[i : i + 8192]].astype(np.float32) @ weights for i in range(0, len(rows), 8192)])


def main() -> None:
    args = index_bench_args(__doc__, "int8_scoring", 100_000, 100).parse_args()
    qvecs, store, index = bench_index(args)
    times: dict[str, dict[str, list[float]]] = {"floor": {"wall": [], "cpu": []}, "ours": {"wall": [], "cpu": []}}
    candidates = []
    for i, q in enumerate(qvecs[: args.queries]):
        query = np.asarray(q, dtype=np.float32)
        rows = index.candidates(query)
        weights = index.weights(query)[: index.lead.shape[1]]
        candidates.append(len(rows))
        order = [("floor", floor), ("ours", None)] if i % 2 == 0 else [("ours", None), ("floor", floor)]
        got = {}
        for name, fn in order:
            wall, cpu = time.perf_counter(), time.thread_time()
            got[name] = fn(index.lead, rows, weights) if fn else index.code_scores(index.lead, rows, weights)
            times[name]["cpu"].append(time.thread_time() - cpu)
            times[name]["wall"].append(time.perf_counter() - wall)
        if not np.allclose(got["floor"], got["ours"], rtol=1e-5, atol=1e-3):
            raise SystemExit(f"query {i}: the scores differ")
    store.close()
    out: dict = {"library": args.library, "model": MODEL, "queries": len(candidates), "dim": index.dim,
                 "vectors": len(index), "candidates_p50": int(np.median(candidates)), "scores_equal": True,
                 "machine": machine(), "load": os.getloadavg()}
    for name, measured in times.items():
        for kind, values in measured.items():
            out[f"{name}_{kind}_ms"] = {"p50": round(percentile(values, 50) * 1e3, 2),
                                        "p95": round(percentile(values, 95) * 1e3, 2)}
    for kind in ("wall", "cpu"):
        out[f"ours_over_floor_{kind}_p50"] = round(out[f"ours_{kind}_ms"]["p50"] / out[f"floor_{kind}_ms"]["p50"], 3)
    for key, value in out.items():
        if key.endswith("_ms") or key.startswith("ours_over") or key in ("vectors", "candidates_p50", "load"):
            print(f"{key}: {value}")
    save("int8_scoring", out, args.json)


if __name__ == "__main__":
    main()
