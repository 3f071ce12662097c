"""Search before and after issue 48's speed-ups, in one process, on the same queries, interleaved (so the load of a
busy machine falls on both alike), with the answers compared.

    python bench/search_ab.py --chunks 100000 --queries 300     # the library bench/scale.py built and cached

"before": each keyword candidate's column terms made again from its stored text at query time
(sqlite/keyword/fts5.py `_counts_from_text`, as every query did until 2026-12-06) and highlights through the whole
text pipeline (the oracle kept in tests/unit/core/text/test_highlight_equal.py). "after": the terms stored in the
keyword side index and the highlight path of text/highlight.py. Each query runs both ways, in alternating order;
`identical_results` counts the queries whose results (chunk ids, scores, highlight spans) were the same. The tag
filter keeps 10 % of the library once bench/scale.py has measured it (it writes the dates and tags).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from _common import percentile, save
from server_scale import DIM, MODEL, SavedEmbedder, load_library, open_engine

from desktop_app.core.search import service
from desktop_app.core.store.rows import Filters
from desktop_app.core.store.side import keyword_index as ki
from tests.unit.core.text.test_highlight_equal import reference_spans

AFTER_TERMS, AFTER_HIGHLIGHTS = ki.Keywords.terms, service.highlight_spans


def use(before: bool) -> None:
    ki.Keywords.terms = (lambda self, _hits: None) if before else AFTER_TERMS  # type: ignore[method-assign]
    service.highlight_spans = reference_spans if before else AFTER_HIGHLIGHTS


def compare(store, embedder, texts: list[str], mode: str, filters: Filters | None) -> dict:
    times: dict[str, list[float]] = {"before": [], "after": []}
    same = 0
    for i, text in enumerate(texts):
        answers = {}
        for which in ("before", "after") if i % 2 else ("after", "before"):
            use(which == "before")
            started = time.perf_counter()
            found = service.search_store(store, text, embedder=embedder, mode=mode, top_k=10, filters=filters)
            times[which].append((time.perf_counter() - started) * 1000)
            answers[which] = [(r.metadata["chunk_id"], r.score, r.metadata["highlights"]) for r in found]
        same += answers["before"] == answers["after"]
    use(False)
    out: dict = {w: {"p50_ms": round(percentile(t, 50), 1), "p95_ms": round(percentile(t, 95), 1)}
                 for w, t in times.items()}
    return {**out, "identical_results": f"{same}/{len(texts)}"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--work", default=str(Path.home() / ".cache" / "trove-bench"))
    ap.add_argument("--vectors", default=str(Path.home() / ".cache" / "trove-bench" / "scifact_minilm_1500.npz"))
    ap.add_argument("--dataset", default="/work/shared/eval/scifact")
    ap.add_argument("--json", help="results file (default bench/results/search_ab_<N>.json)")
    args = ap.parse_args()
    _, _, texts, qvecs = load_library(Path(args.vectors), Path(args.dataset))
    texts, qvecs = texts[: args.queries], qvecs[: args.queries]
    db = Path(args.work) / f"scale-{args.chunks}" / "library.db"
    if not db.exists():
        raise SystemExit(f"{db} is missing: build it first with bench/scale.py --chunks {args.chunks} --build-only")
    store = open_engine("sqlite", str(db))
    store.ensure_embedding_model(MODEL, DIM)
    embedder = SavedEmbedder(texts, qvecs)
    service.search_store(store, texts[0], embedder=embedder, top_k=10)
    for side in ("_vector_index", "_keyword_index"):  # both side indexes loaded (or rebuilt) before timing
        store.__dict__[side].wait()
    results: dict = {"chunks": args.chunks, "queries": len(texts), "load_before": os.getloadavg()}
    for name, filters in (("none", None), ("tag", Filters(tags=("t3",)))):
        for mode in ("keyword", "hybrid"):
            results[f"{mode}_{name}"] = compare(store, embedder, texts, mode, filters)
            print(mode, name, results[f"{mode}_{name}"], flush=True)
    results["load_after"] = os.getloadavg()
    store.close()
    save(f"search_ab_{args.chunks}", results, args.json)


if __name__ == "__main__":
    main()
