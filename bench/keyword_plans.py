"""Keyword top-k plans against bare FTS5, on SciFact replicated to N chunks (issue 24).

    flock /tmp/s4/bench.lock python bench/keyword_plans.py --chunks 100000 [--queries test] [--tantivy]

The library is a bare FTS5 table of Trove's schema (title, words, stems, grams; `ascii` tokenizer; contentless)
holding the text pipeline's fields of SciFact's 5,183 abstracts, copy r with its replica word "replica<r>" (as
bench/server_scale.py builds it), cached under ~/.cache/trove-bench/keywords_<N>.db. The queries are SciFact's
(test: the 300 the README reports; train: where any choice would be tuned), through `text.build_query`.

Plans, each timed per query in the same process (p50/p95 ms, and the ratio to the bare plan):
  - bare:    `MATCH <OR of every term> ORDER BY bm25 LIMIT k` (k = 50), what `keyword_candidates` ran before;
  - maxscore: core/store/sqlite/keyword/topk.py (rare terms find candidates, common ones score them, an exact
             bound or the bare plan), the time including its fallback;
  - and_first: every term AND'ed, exact when the k-th score beats the most a row missing any one term can score
             (else the bare plan, timed inclusive);
  - tantivy (--tantivy): a tantivy index of the same tokens (whitespace tokenizer), BM25 with block-max WAND;
             its own scoring, so its top k is compared, not required equal.
For each plan: how often its top k equals the bare plan's (same ids in the same order, scores within 1e-9
relative), and how often it answered without falling back.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import sqlean as sqlite3
from _common import percentile, save

from desktop_app.core import text as tp
from desktop_app.core.store.sqlite.keyword import topk as kt

SCIFACT = Path(os.environ.get("TROVE_SCIFACT", "/work/shared/eval/scifact"))
CACHE = Path.home() / ".cache" / "trove-bench"
K = 50  # what search_store asks each side for (service.MIN_CANDIDATES)


def build(path: Path, n_chunks: int) -> None:
    """The replicated library as a bare FTS5 table (the text pipeline runs once per abstract)."""
    docs = [json.loads(line) for line in open(SCIFACT / "corpus.jsonl", encoding="utf-8")]
    base = [tp.index_fields(d.get("title", ""), d.get("text", "")) for d in docs]
    tmp = path.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    conn = sqlite3.connect(str(tmp))
    conn.execute(tp.fts5_schema("chunks_fts", "content='', contentless_delete=1"))
    written, r = 0, 0
    while written < n_chunks:
        extra = tp.index_fields("", f"replica{r}") if r else {c: "" for c in tp.FTS5_COLUMNS}
        rows = []
        for fields in base[: n_chunks - written]:
            written += 1
            rows.append((written, *(" ".join(x for x in (fields[c], extra[c]) if x) for c in tp.FTS5_COLUMNS)))
        conn.executemany("INSERT INTO chunks_fts (rowid, title, words, stems, grams) VALUES (?, ?, ?, ?, ?)", rows)
        r += 1
    conn.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')")
    conn.commit()
    conn.close()
    tmp.rename(path)


def queries(split: str) -> list[str]:
    qrels = "qrels.tsv" if split == "test" else "qrels_train.tsv"
    ids = {line.split("\t")[0] for line in open(SCIFACT / qrels, encoding="utf-8").read().splitlines()[1:]}
    source = "queries.jsonl" if split == "test" else "queries_all_beir.jsonl"
    return [q["text"] for q in map(json.loads, open(SCIFACT / source, encoding="utf-8")) if q["_id"] in ids]


RANK = tp.fts5_rank("chunks_fts")
BARE = f"SELECT rowid, {RANK} AS r FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY r, rowid LIMIT ?"


def bare(conn, query: tp.Query) -> list[tuple[int, float]]:
    return [(int(i), -float(r)) for i, r in conn.execute(BARE, (tp.to_fts5(query), K))]


def maxscore(conn, query: tp.Query) -> tuple[list[tuple[int, float]], bool]:
    hits = kt.TopK(conn, RANK).search(query, K)
    return (hits, True) if hits is not None else (bare(conn, query), False)


def and_first(conn, query: tp.Query) -> tuple[list[tuple[int, float]], bool]:
    """All terms AND'ed; exact when the k-th beats the best a row missing one term could score."""
    rows = kt.row_count(conn)
    match = " AND ".join(f"({tp.to_fts5(tp.Query((t,)))})" for t in query.terms)
    hits = [(int(i), -float(r)) for i, r in conn.execute(BARE, (match, K))]
    counts = [int(conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?",
                               (tp.to_fts5(tp.Query((t,))),)).fetchone()[0]) for t in query.terms]
    ub = [max(1, t.weight) * kt.idf(rows, c) * (kt.K1 + 1) for t, c in zip(query.terms, counts, strict=True)]
    if len(hits) == K and len(ub) > 1 and hits[-1][1] > (sum(ub) - min(ub)) * (1 + kt.MARGIN):
        return hits, True
    return bare(conn, query), False


def same(a: list[tuple[int, float]], b: list[tuple[int, float]]) -> bool:
    return [i for i, _ in a] == [i for i, _ in b] and all(
        abs(x - y) <= 1e-9 * max(1.0, abs(y)) for (_, x), (_, y) in zip(a, b, strict=True))


def tantivy_index(path: Path, db: Path):
    """A tantivy index of the FTS5 table's tokens, one document per row (built from the same pipeline fields)."""
    sys.path.insert(0, str(CACHE / "pylib"))
    import tantivy

    schema = tantivy.SchemaBuilder()
    for col in tp.FTS5_COLUMNS:
        schema.add_text_field(col, stored=False, tokenizer_name="whitespace")
    schema.add_integer_field("id", stored=True, indexed=True, fast=True)
    built = schema.build()
    if not (path / "built").exists():
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        index = tantivy.Index(built, path=str(path))
        writer = index.writer(heap_size=200_000_000, num_threads=1)
        docs = [json.loads(line) for line in open(SCIFACT / "corpus.jsonl", encoding="utf-8")]
        base = [tp.index_fields(d.get("title", ""), d.get("text", "")) for d in docs]
        n = int(db.stem.split("_")[1])
        written, r = 0, 0
        while written < n:
            for fields in base[: n - written]:
                written += 1
                doc = {c: fields[c] + (f" replica{r}" if r and c != "title" else "") for c in tp.FTS5_COLUMNS}
                writer.add_document(tantivy.Document(id=written, **doc))
            r += 1
        writer.commit()
        writer.wait_merging_threads()
        (path / "built").write_text("ok")
    index = tantivy.Index(built, path=str(path))
    index.reload()
    return tantivy, index


def tantivy_search(tantivy, index, query: tp.Query) -> list[tuple[int, float]]:
    searcher = index.searcher()
    clauses = []
    for term in query.terms:
        for col, boost in (("title", 2.0), (term.field, 1.0)):
            q = tantivy.Query.term_query(index.schema, col, term.token)
            for _ in range(max(1, term.weight)):
                clauses.append((tantivy.Occur.Should, tantivy.Query.boost_query(q, boost)))
    result = searcher.search(tantivy.Query.boolean_query(clauses), K)
    return [(int(searcher.doc(addr)["id"][0]), float(score)) for score, addr in result.hits]


def run(args) -> dict:
    db = CACHE / f"keywords_{args.chunks}.db"
    if not db.exists():
        started = time.perf_counter()
        build(db, args.chunks)
        print(f"built {db} in {time.perf_counter() - started:.0f} s", flush=True)
    conn = sqlite3.connect(str(db))
    qs = [q for q in (tp.build_query(t) for t in queries(args.queries)) if q][: args.limit]
    plans = {"bare": lambda q: (bare(conn, q), True), "maxscore": lambda q: maxscore(conn, q),
             "and_first": lambda q: and_first(conn, q)}
    plans = {name: plan for name, plan in plans.items() if name in args.plans.split(",")}
    if args.tantivy:
        tv, index = tantivy_index(CACHE / f"tantivy_{args.chunks}", db)
        plans["tantivy"] = lambda q: (tantivy_search(tv, index, q), True)
    if args.build_only:
        return {}
    for q in qs[:20]:  # warm the page cache for every plan
        for plan in plans.values():
            plan(q)
    out: dict = {"chunks": args.chunks, "queries": f"scifact {args.queries} ({len(qs)})", "k": K,
                 "load_before": os.getloadavg()[0], "plans": {}}
    reference = {}
    for name, plan in plans.items():
        times, exact_hits, answered = [], 0, 0
        for n, q in enumerate(qs):
            started = time.perf_counter()
            hits, own = plan(q)
            times.append((time.perf_counter() - started) * 1000)
            answered += own
            if name == "bare":
                reference[n] = hits
            exact_hits += same(hits, reference[n])
        out["plans"][name] = {"p50_ms": round(percentile(times, 50), 2), "p95_ms": round(percentile(times, 95), 2),
                              "same_top_k": exact_hits, "answered_without_fallback": answered}
        print(name, out["plans"][name], flush=True)
    floor = out["plans"]["bare"]
    for res in out["plans"].values():
        res["p50_ratio_to_bare"] = round(res["p50_ms"] / floor["p50_ms"], 3)
        res["p95_ratio_to_bare"] = round(res["p95_ms"] / floor["p95_ms"], 3)
    out["load_after"] = os.getloadavg()[0]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--queries", choices=("test", "train"), default="test")
    ap.add_argument("--tantivy", action="store_true")
    ap.add_argument("--plans", default="bare,maxscore,and_first", help="which FTS5 plans (bare is the floor)")
    ap.add_argument("--limit", type=int, default=None, help="the first N queries only")
    ap.add_argument("--build-only", action="store_true", help="build the cached libraries and stop")
    ap.add_argument("--json")
    args = ap.parse_args()
    result = run(args)
    if result:
        save(f"keyword_plans_{args.chunks}_{args.queries}", result, args.json)


if __name__ == "__main__":
    sys.exit(main())
