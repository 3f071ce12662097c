"""Query analysis and fusion choices for long natural-language queries, measured on TUNE halves only.

    python bench/retrieval.py --dataset DIR --home /tmp/lib-DIR      # builds (and keeps) the library once
    python bench/tune_long_queries.py --dataset DIR --home /tmp/lib-DIR [--half tune]

For each variant of the keyword query (how often a repeated word counts, how many distinct terms, how much of
the text, stopwords, the title weight) the library's own FTS5 index is searched with that variant's MATCH
string and ranking; each fusion variant fuses the same keyword and dense candidate lists the search service
would. nDCG@10 over the chosen half of the queries (bench/_baselines.halves, seed 0), beside plain BM25 over the
same chunks. Choices are made here; bench/retrieval.py reports the other half.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from _baselines import bootstrap_diff, documents_of, halves, per_query, plain_bm25
from _common import save
from retrieval import doc_id_of, drop_self, ignores_identical_ids, load_dataset

from desktop_app.core import text as tp
from desktop_app.core.embed.base import MAX_WINDOWS, embed_query, make_embedder
from desktop_app.core.search.fusion import convex_fuse, rrf_fuse
from desktop_app.core.store.sqlite.connect import connect
from desktop_app.core.text import query as tq
from tests.support.helpers import query_db

DEPTH = 150
SELF = {"drop": False}  # ArguAna: a query's own document is left out of its ranking (main sets it)


def keyword_lists(db: Path, queries: dict, title_weight: float) -> dict[str, list[tuple[int, float]]]:
    """The keyword candidates of each query as the current build_query/to_fts5 make them."""
    conn = connect(db, readonly=True)
    rank = tp.fts5_rank("chunks_fts", {"title": title_weight})
    out = {}
    try:
        for qid, text in queries.items():
            match = tp.to_fts5(tp.build_query(text))
            rows = conn.execute(f"SELECT rowid, {rank} AS r FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY r "
                                "LIMIT ?", (match, DEPTH)).fetchall() if match else []
            out[qid] = [(int(c), -float(r)) for c, r in rows]
    finally:
        conn.close()
    return out


def score(lists: dict[str, list[tuple[int, float]]], chunk_doc: dict, qrels: dict, qids: list[str]) -> float:
    run = {q: documents_of([c for c, _ in lists[q]], chunk_doc) for q in qids}
    if SELF["drop"]:
        run = drop_self(run)
    v = per_query(run, qrels, qids)["ndcg@10"]
    return sum(v) / len(v)


VARIANTS = [(1, 64, 2000, "list", 2.0), (4, 64, 2000, "list", 2.0), (1000, 64, 2000, "list", 2.0),
            (4, 256, 8000, "list", 2.0), (4, 64, 2000, "none", 2.0), (4, 64, 2000, "list", 1.0)]
# around what ships (repeats up to 32, 64 terms, 2,000 characters, the stopword list, title 2)
LONG_VARIANTS = [(32, 64, 2000, "list", 2.0), (32, 128, 4000, "list", 2.0), (32, 64, 2000, "none", 2.0),
                 (32, 64, 2000, "list", 1.0), (32, 64, 2000, "list", 4.0)]


def keyword_variants(db: Path, queries: dict, chunk_doc: dict, qrels: dict, qids: list[str],
                     grid: list[tuple] | None = None) -> dict[str, float]:
    """nDCG@10 of each keyword variant (repeat cap, term cap, characters read, stopwords, title weight), set as the
    module constants of core/text/query.py for the run; printed as each finishes."""
    saved = (tq.MAX_REPEAT, tq.MAX_TERMS, tq.MAX_QUERY_CHARS, tq.STOPWORDS)
    out = {}
    for repeat, terms, chars, stop, title in grid or VARIANTS:
        tq.MAX_REPEAT, tq.MAX_TERMS, tq.MAX_QUERY_CHARS = repeat, terms, chars
        tq.STOPWORDS = saved[3] if stop == "list" else frozenset()
        key = f"repeat={repeat} terms={terms} chars={chars} stopwords={stop} title={title}"
        out[key] = score(keyword_lists(db, {q: queries[q] for q in qids}, title), chunk_doc, qrels, qids)
        print(f"  {out[key]:.4f}  {key}", flush=True)
    tq.MAX_REPEAT, tq.MAX_TERMS, tq.MAX_QUERY_CHARS, tq.STOPWORDS = saved
    return out


def dense_lists(db: Path, vectors: dict[str, np.ndarray]) -> dict[str, list[tuple[int, float]]]:
    """Nearest chunks of each query vector by the same vec0 KNN the store runs (a chunk's best window)."""
    conn = connect(db, readonly=True)
    out = {}
    try:
        for qid, vec in vectors.items():
            rows = conn.execute("SELECT rowid, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ? "
                                "ORDER BY distance", (np.asarray(vec, dtype=np.float32).tobytes(), 2 * DEPTH))
            best: dict[int, float] = {}
            for rowid, dist in rows:
                best.setdefault(int(rowid) // MAX_WINDOWS, 1.0 - float(dist) ** 2 / 2.0)
            out[qid] = list(best.items())[:DEPTH]
    finally:
        conn.close()
    return out


def fusion_variants(db: Path, queries: dict, chunk_doc: dict, qrels: dict, qids: list[str]) -> dict[str, float]:
    """nDCG@10 of convex fusion at several keyword weights and of RRF, over the service's candidate lists; and of
    the dense side with the query embedded whole (cut at 256 pieces) or as the mean of its windows."""
    embedder = make_embedder("minilm")
    keyword = keyword_lists(db, {q: queries[q] for q in qids}, 2.0)
    dense_raw = dense_lists(db, {q: embed_query(embedder, queries[q]) for q in qids})
    dense = {q: [h for h in dense_raw[q] if h[1] >= 0.2] for q in qids}
    means = {}
    for q in qids:
        mean = np.mean([embed_query(embedder, w) for w in embedder.windows(queries[q])[:MAX_WINDOWS]], axis=0)
        means[q] = mean / np.linalg.norm(mean)
    out = {"dense": score(dense, chunk_doc, qrels, qids), "dense, no similarity floor": score(dense_raw, chunk_doc,
           qrels, qids), "dense windows-mean": score(dense_lists(db, means), chunk_doc, qrels, qids),
           "keyword": score(keyword, chunk_doc, qrels, qids)}
    for w in (0.3, 0.5, 0.7, 1.0, 1.5, 2.0):
        fused = {q: convex_fuse([keyword[q], dense[q]], [w, 1.0]) for q in qids}
        out[f"convex keyword_weight={w}"] = score(fused, chunk_doc, qrels, qids)
    for k in (10, 30, 60, 100):
        fused = {q: rrf_fuse([[c for c, _ in keyword[q]], [c for c, _ in dense[q]]], k=k) for q in qids}
        out[f"rrf k={k}"] = score(fused, chunk_doc, qrels, qids)
    return out


def long_fusion_variants(db: Path, queries: dict, chunk_doc: dict, qrels: dict, qids: list[str]) -> dict[str, float]:
    """Long-query choices over the search service's own candidate lists, fast: the query vector cut at the model's
    window (as shipped) or the mean of its windows' vectors, and convex fusion at several keyword weights, on
    `qids`; query vectors from the bench cache (bench/_qcache.py, the index's int8 model)."""
    from _qcache import CachedEmbedder, cache_path

    from desktop_app.core.search.service import SearchParams

    def query_vector(embedder: CachedEmbedder, text: str, windows: bool) -> np.ndarray:
        parts = embedder.windows(text)[:MAX_WINDOWS] if windows else []
        if len(parts) <= 1:
            return embedder.embed_query(text)
        mean = np.mean([embedder.embed_query(p) for p in parts], axis=0)
        return mean / np.linalg.norm(mean)

    inner = make_embedder("minilm")
    embedder = CachedEmbedder(inner, cache_path(inner.model_id), passage_queries=True)
    floor = SearchParams().min_similarity
    keyword = keyword_lists(db, {q: queries[q] for q in qids}, 2.0)
    out: dict[str, float] = {"keyword": score(keyword, chunk_doc, qrels, qids)}
    for name, windows in (("first window", False), ("windows mean", True)):
        raw = dense_lists(db, {q: query_vector(embedder, queries[q], windows=windows) for q in qids})
        dense = {q: [h for h in raw[q] if h[1] >= floor] for q in qids}
        out[f"semantic, {name}"] = score(dense, chunk_doc, qrels, qids)
        for w in (0.5, 0.7, 1.0, 1.5, 2.0):
            fused = {q: convex_fuse([keyword[q], dense[q]], [w, 1.0]) for q in qids}
            out[f"hybrid, {name}, keyword weight {w}"] = score(fused, chunk_doc, qrels, qids)
        print("  " + "  ".join(f"{v:.4f} {k}" for k, v in out.items() if name in k), flush=True)
    embedder.save()
    return out



def keyword_report(db: Path, chunks: list, chunk_doc: dict, queries: dict, qrels: dict, qids: list[str]) -> dict:
    """The keyword mode before (every word once: MAX_REPEAT = 1) and as shipped, against plain BM25 over the same
    chunks, on `qids`: means and per-query differences with 95% bootstrap intervals."""
    asked = {q: queries[q] for q in qids}
    saved = tq.MAX_REPEAT
    tq.MAX_REPEAT = 1
    before = keyword_lists(db, asked, 2.0)
    tq.MAX_REPEAT = saved
    shipped = keyword_lists(db, asked, 2.0)
    runs = {"plain BM25": plain_bm25(chunks, chunk_doc, asked),
            "keyword before (each word once)": {q: documents_of([c for c, _ in before[q]], chunk_doc) for q in qids},
            "keyword": {q: documents_of([c for c, _ in shipped[q]], chunk_doc) for q in qids}}
    if SELF["drop"]:
        runs = {name: drop_self(run) for name, run in runs.items()}
    scores = {name: per_query(run, qrels, qids) for name, run in runs.items()}
    out: dict = {"queries": len(qids), "max_repeat": saved,
                 "modes": {n: {m: sum(v) / len(v) for m, v in s.items()} for n, s in scores.items()}, "diff": {}}
    for a, b in (("keyword", "plain BM25"), ("keyword before (each word once)", "plain BM25"),
                 ("keyword", "keyword before (each word once)")):
        out["diff"][f"{a} - {b}"] = {m: bootstrap_diff(scores[a][m], scores[b][m]) for m in scores[a]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", required=True, type=Path)
    ap.add_argument("--split", choices=("test", "train"), default="test")
    ap.add_argument("--home", required=True, type=Path, help="a library bench/retrieval.py built with --home")
    ap.add_argument("--half", choices=("tune", "all"), default="tune")
    ap.add_argument("--report", action="store_true",
                    help="instead: keyword before/as shipped vs plain BM25 on the REPORT half, with intervals")
    ap.add_argument("--skip-keyword", action="store_true")
    ap.add_argument("--skip-fusion", action="store_true")
    ap.add_argument("--skip-plain", action="store_true", help="plain BM25 of long queries is slow; skip it")
    ap.add_argument("--long-fusion", action="store_true", help="the service's long-query choices, fast")
    ap.add_argument("--around-shipped", action="store_true", help="keyword variants around what ships now")
    args = ap.parse_args()
    _, queries, qrels = load_dataset(args.dataset, args.split)
    SELF["drop"] = ignores_identical_ids(args.dataset)
    qids = sorted(queries) if args.half == "all" else halves(list(queries))["tune"]  # SciFact train: --half all
    db = args.home / "library.db"
    rows = query_db(db, "SELECT c.id, c.text, d.path FROM chunks c JOIN documents d ON d.id = c.document_id")
    chunks, chunk_doc = [(int(r[0]), r[1]) for r in rows], {int(r[0]): doc_id_of(r[2]) for r in rows}
    if args.report:
        half = "all" if args.half == "all" else "report"
        asked = sorted(queries) if half == "all" else halves(list(queries))["report"]
        fig = keyword_report(db, chunks, chunk_doc, queries, qrels, asked)
        print(json.dumps(fig, indent=1))
        save(f"retrieval_{args.dataset.name}_{args.split}_{half}_keyword", {"dataset": args.dataset.name,
                                                                           "half": half, "half_seed": 0, **fig})
        return
    results: dict = {"dataset": args.dataset.name, "split": args.split, "half": args.half, "queries": len(qids)}
    if not args.skip_plain:
        plain = plain_bm25(chunks, chunk_doc, {q: queries[q] for q in qids})
        v = per_query(drop_self(plain) if SELF["drop"] else plain, qrels, qids)["ndcg@10"]
        results["plain BM25"] = sum(v) / len(v)
        print(f"{args.dataset.name} {args.split} {args.half}: {len(qids)} queries; plain BM25 {sum(v) / len(v):.4f}",
              flush=True)
    if not args.skip_keyword:
        results["keyword"] = keyword_variants(db, queries, chunk_doc, qrels, qids,
                                              LONG_VARIANTS if args.around_shipped else None)
    if not args.skip_fusion:
        results["fusion"] = fusion_variants(db, queries, chunk_doc, qrels, qids)
        for key, value in results["fusion"].items():
            print(f"  {value:.4f}  {key}")
    if args.long_fusion:
        results["long_fusion"] = long_fusion_variants(db, queries, chunk_doc, qrels, qids)
    save(f"tune_long_queries_{args.dataset.name}_{args.split}_{args.half}", results)


if __name__ == "__main__":
    main()
