"""How a hybrid search's two sides are best arranged on this machine, with the real query embedder.

    python bench/hybrid_sides.py [--library ~/.cache/trove-bench/scale-100000/library.db] [--queries 300]

bench/scale.py times hybrid search with saved query vectors, so its semantic side is the vector search alone. In
the app the semantic side first embeds the query (MiniLM, ONNX Runtime, outside the GIL for most of its time). On a
library bench/scale.py built, SciFact's test claims as queries, in this process, three arrangements of the same
calls (`keyword_candidates`, `embed_query`, `dense_candidates`, each side asking for 50 candidates as search does):
  - at_once: the keyword side on the side pool while this thread embeds the query and searches the vectors (what
    search_store did until 2026-12-07 for every engine);
  - in_sequence: the keyword side, then embedding and the vector search;
  - embed_beside_keyword: the keyword side on the pool while this thread embeds the query; the vector search after
    both (numpy and tantivy calls no longer take turns at the GIL).
Each query is answered by all three in a rotating order over three passes (every arrangement goes first, second
and third equally often, and never asks a query another asked a moment before). Also timed alone, for scale: the
embedder, the keyword side and the vector search. p50 / p95 ms of wall time, the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path

from _common import machine, percentile, save
from scale import DEFAULT_VECTORS, open_library
from server_scale import load_library

from desktop_app.core.embed.base import embed_query, make_embedder
from desktop_app.core.search.side_pool import run_both

CANDIDATES = 50


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--library", default=str(Path.home() / ".cache" / "trove-bench" / "scale-100000" / "library.db"))
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--embedder", default="minilm", help="an embedder setting (make_embedder)")
    ap.add_argument("--dataset", default="/work/shared/eval/scifact")
    ap.add_argument("--json", help="results file (default bench/results/hybrid_sides.json)")
    args = ap.parse_args()
    _, _, texts, _ = load_library(DEFAULT_VECTORS, Path(args.dataset))
    texts = texts[: args.queries]
    store, _ = open_library("sqlite", args.library)
    embedder = make_embedder(args.embedder)
    store.dense_candidates(embed_query(embedder, texts[0]), CANDIDATES)
    store.keyword_candidates(texts[0], CANDIDATES)
    for attr in ("_vector_index", "_keyword_index"):
        if (side := store.__dict__.get(attr)) is not None:
            side.wait()

    def keyword(i: int) -> object:
        return store.keyword_candidates(texts[i], CANDIDATES)

    def embed(i: int):
        return embed_query(embedder, texts[i])

    def dense(vector) -> object:
        return store.dense_candidates(vector, CANDIDATES)

    ways: dict[str, Callable[[int], object]] = {
        "at_once": lambda i: run_both(lambda: keyword(i), lambda: dense(embed(i))),
        "in_sequence": lambda i: (keyword(i), dense(embed(i))),
        "embed_beside_keyword": lambda i: dense(run_both(lambda: keyword(i), lambda: embed(i))[1]),
    }
    vectors = [embed(i) for i in range(len(texts))]
    alone: dict[str, Callable[[int], object]] = {"embed": embed, "keyword": keyword,
                                                  "dense": lambda i: dense(vectors[i])}
    load_before = os.getloadavg()
    for i in range(min(10, len(texts))):  # warm every path
        for fn in (*ways.values(), *alone.values()):
            fn(i)
    times: dict[str, list[float]] = {name: [] for name in (*ways, *alone)}
    names = list(ways)
    for turn in range(len(names)):
        for i in range(len(texts)):
            name = names[(i + turn) % len(names)]
            started = time.perf_counter()
            ways[name](i)
            times[name].append((time.perf_counter() - started) * 1000)
    for name, fn in alone.items():
        for i in range(len(texts)):
            started = time.perf_counter()
            fn(i)
            times[name].append((time.perf_counter() - started) * 1000)
    store.close()
    out = {"machine": machine(), "library": args.library, "queries": len(texts), "embedder": args.embedder,
           "candidates_per_side": CANDIDATES, "load_before": load_before, "load_after": os.getloadavg(),
           "ms": {name: {"p50": round(percentile(t, 50), 2), "p95": round(percentile(t, 95), 2)}
                  for name, t in times.items()}}
    for name, row in out["ms"].items():
        print(f"{name:22s} p50 {row['p50']:7.2f}  p95 {row['p95']:7.2f} ms")
    save("hybrid_sides", out, args.json)


if __name__ == "__main__":
    main()
