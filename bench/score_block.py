"""The vector index's int8 scoring by block size: how many codes `Loaded.code_scores` widens and dots at a time.

    python bench/score_block.py [--library ~/.cache/trove-bench/scale-1000000/library.db] [--blocks 512,1024,4096]

On the side index of a library bench/scale.py built (its real leading codes, the sketch's real candidates for SciFact's
test queries), in this process, each query scored at every block size in a rotating order. OpenBLAS splits a
matrix-vector product over its threads once the block is large enough: wall time may fall on an idle machine while
the CPU spent (process time, every thread's) rises, and on a busy one both rise. Wall and process CPU time, p50 / p95,
the load average before and after, and that the scores are equal at every size.
"""

from __future__ import annotations

import os
import time

import numpy as np
from _common import machine, percentile, save
from scale import bench_index, index_bench_args

from desktop_app.core.store.side import vector_index as vi


def main() -> None:
    ap = index_bench_args(__doc__, "score_block", 1_000_000, 200)
    ap.add_argument("--blocks", default="512,1024,2048,4096")
    args = ap.parse_args()
    blocks = [int(b) for b in args.blocks.split(",")]
    qvecs, store, index = bench_index(args)
    shipped = vi.SCORE_BLOCK
    vi.SCORE_BLOCK = max(blocks)
    width = index.lead.shape[1]
    index.code_scores(index.lead, np.arange(8), index.weights(np.asarray(qvecs[0], np.float32))[:width])  # buffers
    times: dict[int, dict[str, list[float]]] = {b: {"wall": [], "cpu": []} for b in blocks}
    load_before = os.getloadavg()
    candidates = []
    for i, q in enumerate(qvecs[: args.queries]):
        query = np.asarray(q, dtype=np.float32)
        rows = index.candidates(query)
        weights = index.weights(query)[:width]
        candidates.append(len(rows))
        scores = {}
        for b in blocks[i % len(blocks):] + blocks[: i % len(blocks)]:
            vi.SCORE_BLOCK = b
            wall, cpu = time.perf_counter(), time.process_time()
            scores[b] = index.code_scores(index.lead, rows, weights)
            times[b]["cpu"].append(time.process_time() - cpu)
            times[b]["wall"].append(time.perf_counter() - wall)
        if not all(np.allclose(s, scores[blocks[0]], rtol=1e-5, atol=1e-3) for s in scores.values()):
            raise SystemExit(f"query {i}: the scores differ between block sizes")
    store.close()
    out = {"machine": machine(), "library": args.library, "queries": len(candidates), "shipped_block": shipped,
           "candidates_p50": int(np.median(candidates)), "load_before": load_before, "load_after": os.getloadavg(),
           "ms": {str(b): {k: {"p50": round(percentile([x * 1000 for x in v], 50), 2),
                               "p95": round(percentile([x * 1000 for x in v], 95), 2)} for k, v in t.items()}
                  for b, t in times.items()}}
    for b, row in out["ms"].items():
        print(f"block {b:>5}: wall p50 {row['wall']['p50']:7.2f} p95 {row['wall']['p95']:7.2f}   "
              f"cpu p50 {row['cpu']['p50']:7.2f} p95 {row['cpu']['p95']:7.2f} ms")
    save("score_block", out, args.json)


if __name__ == "__main__":
    main()
