"""Keyword retrieval: the text pipeline (desktop_app.core.text) against today's porter FTS5 pipeline.

    python bench/text_pipeline.py [--scifact ../shared/eval/scifact] [--multilingual DIR] [--json OUT]

Both sides are built in this process on real FTS5 tables (desktop_app.core.db.connect, a temp file), from
the same documents as bench/retrieval.py writes them (title line, blank line, text), through Trove's own
extract → first-line title → chunking, one row per chunk, hits grouped by document:

* before: columns (title, text), `porter unicode61 remove_diacritics 2`, fts_query.build_fts_query as it
  was before this branch, bm25(2.0, 1.0) — what Library.search(mode="keyword") ran; and with the fixed
  fts_query (the typed last word as one prefix phrase);
* plain porter: one column title + text, `porter unicode61`, OR of the query's words, bm25 — the baseline of
  issue 13;
* text pipeline: columns (title, words, stems, grams), `ascii` tokenizer over index_fields(), to_fts5(build_query()).

Then the ablation behind the English-ranking gap (stopwords, title column and weight, first-line title,
prefix expansion of the last word), on SciFact's train and test splits, and the same systems on each
language of a multilingual QA slice. nDCG@10 / Recall@100 from bench/retrieval.py. Prints a table, saves JSON.
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import legacy_fts_query as fts_query  # the keyword query builder before core/text, as the baseline
from _common import percentile, save
from retrieval import evaluate, load_dataset

from desktop_app.core import text as tp
from desktop_app.core.ingest.chunking import ChunkConfig, chunk_spans
from desktop_app.core.ingest.extract import extract, index_title, title_from_path
from desktop_app.core.store.sqlite.connect import connect

TOP = 100
CANDIDATES = 300  # Library.search(top_k=100) fetches max(3 * top_k, 50) chunks


@dataclass(frozen=True)
class Doc:
    """One document as the indexer sees it: the FTS title and its chunks' texts."""

    doc_id: str
    title: str
    chunks: tuple[str, ...]


def prepare(corpus: dict, *, first_line_title: bool = True) -> list[Doc]:
    """Each document through extract (as a .txt file written like bench/retrieval.py) and the chunker."""
    docs = []
    for did, (title, body) in corpus.items():
        path = Path(f"{did}.txt")
        extracted = extract(path, f"{title}\n\n{body}\n".encode())
        head = extracted.title if first_line_title else title_from_path(path)
        chunks = tuple(s.text for s in chunk_spans(extracted.text, ChunkConfig()))
        docs.append(Doc(did, index_title(head, path), chunks))
    return docs


class Index:
    """An FTS5 table of chunk rows, rowid → document id, queried by MATCH and ranked by an expression."""

    def __init__(self, path: Path, schema: str, rows: list[tuple[str, tuple]], columns: str) -> None:
        self.conn = connect(path)
        self.conn.execute(schema)
        self.doc_of: dict[int, str] = {}
        t0 = time.perf_counter()
        with_values = ", ".join("?" * (1 + columns.count(",") + 1))
        self.conn.execute("BEGIN")
        for rowid, (did, values) in enumerate(rows, 1):
            self.doc_of[rowid] = did
            self.conn.execute(f"INSERT INTO t (rowid, {columns}) VALUES ({with_values})", (rowid, *values))
        self.conn.execute("COMMIT")
        self.insert_s = time.perf_counter() - t0

    def search(self, match: str | None, rank: str) -> list[str]:
        if not match:
            return []
        rows = self.conn.execute(f"SELECT rowid FROM t WHERE t MATCH ? ORDER BY {rank} LIMIT {CANDIDATES}", (match,))
        ranked: dict[str, None] = {}
        for (rowid,) in rows:
            ranked.setdefault(self.doc_of[rowid], None)
        return list(ranked)[:TOP]

    def close(self) -> None:
        self.conn.close()


def today_rows(docs: list[Doc], merge_title: bool = False) -> list[tuple[str, tuple]]:
    if merge_title:
        return [(d.doc_id, (f"{d.title} {c}",)) for d in docs for c in d.chunks]
    return [(d.doc_id, (d.title, c)) for d in docs for c in d.chunks]


def pipeline_rows(docs: list[Doc], *, title: bool = True) -> tuple[list[tuple[str, tuple]], float]:
    """Rows for the text pipeline's columns, and the seconds index_fields took."""
    t0 = time.perf_counter()
    rows = []
    for d in docs:
        for c in d.chunks:
            fields = tp.index_fields(d.title if title else "", c)
            rows.append((d.doc_id, tuple(fields[f] for f in tp.FTS5_COLUMNS)))
    return rows, time.perf_counter() - t0


def plain_rows(docs: list[Doc]) -> list[tuple[str, tuple]]:
    return [(d.doc_id, (f"{d.title} {c}",)) for d in docs for c in d.chunks]


def plain_search(index: Index) -> Callable[[str], list[str]]:
    return lambda text: index.search(plain_match(text), "bm25(t)")


def plain_match(text: str) -> str | None:
    words = sorted(set(re.findall(r"\w+", text.lower())))
    return " OR ".join(f'"{w}"' for w in words) or None


def typed(text: str) -> str:
    """A query as typed into the search bar: no closing punctuation (so the last word counts as typed)."""
    return re.sub(r"[\W_]+$", "", text)


def run(queries: dict, search: Callable[[str], list[str]]) -> tuple[dict[str, list[str]], list[float]]:
    out, lat = {}, []
    for qid, text in queries.items():
        t0 = time.perf_counter()
        out[qid] = search(text)
        lat.append(time.perf_counter() - t0)
    return out, lat


def score(queries: dict, qrels: dict, search: Callable[[str], list[str]]) -> dict:
    ranked, lat = run(queries, search)
    return {**evaluate(ranked, qrels), "p50_ms": percentile(lat, 50) * 1000, "p95_ms": percentile(lat, 95) * 1000}


def legacy_fts_query(text: str) -> str | None:
    """fts_query.build_fts_query before this branch: the typed last word searched exactly AND as up to three
    prefixes trimmed by up to two letters (kept here to measure the change in the same run)."""
    terms = fts_query.query_terms(text)
    if not terms:
        return None
    parts = [f'"{t}"' for t in terms]
    stripped = (text or "").rstrip()
    if stripped == (text or "") and re.search(r"\w", stripped[-1:] or " "):
        last = re.findall(r"\w+", stripped)[-1].lower().strip("_")
        if last in terms:
            cuts = [last] if not last.isalpha() else [last[: len(last) - c] for c in range(3)
                                                      if c == 0 or len(last) - c >= 4]
            parts[terms.index(last)] = "(" + " OR ".join([f'"{last}"'] + [f'"{p}"*' for p in cuts]) + ")"
    return " OR ".join(parts)


def today_search(index: Index, title_weight: float = 2.0, *, stopwords: bool = True, columns: int = 2,
                 legacy: bool = False):
    rank = f"bm25(t, {title_weight}, 1.0)" if columns == 2 else "bm25(t)"
    build = legacy_fts_query if legacy else fts_query.build_fts_query

    def search(text: str) -> list[str]:
        if stopwords:
            return index.search(build(text), rank)
        with mock.patch.object(fts_query, "STOPWORDS", frozenset()):
            return index.search(build(text), rank)
    return search


def pipeline_search(index: Index, weights: dict | None = None, **query_options):
    rank = tp.fts5_rank("t", weights)
    return lambda text: index.search(tp.to_fts5(tp.build_query(text, **query_options)), rank)


TODAY_SCHEMA = "CREATE VIRTUAL TABLE t USING fts5(title, text, tokenize='porter unicode61 remove_diacritics 2')"
MERGED_SCHEMA = "CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')"
PLAIN_SCHEMA = "CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61')"


def english_systems(corpus: dict, work: Path) -> tuple[dict[str, Callable], list[Index], dict]:
    """Every system of the SciFact comparison and ablation, each a search function; plus indexing timings."""
    docs = prepare(corpus)
    no_title_docs = prepare(corpus, first_line_title=False)
    today = Index(work / "today.db", TODAY_SCHEMA, today_rows(docs), "title, text")
    merged = Index(work / "merged.db", MERGED_SCHEMA, today_rows(docs, merge_title=True), "text")
    no_first = Index(work / "nofirst.db", TODAY_SCHEMA, today_rows(no_title_docs), "title, text")
    plain = Index(work / "plain.db", PLAIN_SCHEMA, plain_rows(docs), "text")
    rows, fields_s = pipeline_rows(docs)
    cols = ", ".join(tp.FTS5_COLUMNS)
    ours = Index(work / "ours.db", tp.fts5_schema("t"), rows, cols)
    rows_nt, _ = pipeline_rows(docs, title=False)
    ours_nt = Index(work / "ours_notitle.db", tp.fts5_schema("t"), rows_nt, cols)
    systems = {
        "plain FTS5 porter (OR, bm25)": plain_search(plain),
        "plain FTS5 porter, query typed": lambda q: plain_search(plain)(typed(q)),
        "before: today's keyword mode": today_search(today, legacy=True),
        "before, query typed (last word prefix)": lambda q: today_search(today, legacy=True)(typed(q)),
        "before, stopwords kept": today_search(today, stopwords=False, legacy=True),
        "before, title weight 1.0": today_search(today, 1.0, legacy=True),
        "before, title merged into text": today_search(merged, columns=1, legacy=True),
        "before, no first-line title": today_search(no_first, legacy=True),
        "fts_query fixed: one prefix phrase": today_search(today),
        "fts_query fixed, query typed": lambda q: today_search(today)(typed(q)),
        "pipeline": pipeline_search(ours),
        "pipeline, query typed (last word prefix)": lambda q: pipeline_search(ours)(typed(q)),
        "pipeline, stopwords kept": pipeline_search(ours, drop_stopwords=False),
        "pipeline, title weight 1.0": pipeline_search(ours, {"title": 1.0}),
        "pipeline, title weight 3.0": pipeline_search(ours, {"title": 3.0}),
        "pipeline, no title (chunk text only)": pipeline_search(ours_nt),
    }
    timing = {"docs": len(docs), "chunks": len(rows), "index_fields_s": fields_s,
              "insert_pipeline_s": ours.insert_s, "insert_today_s": today.insert_s}
    return systems, [today, merged, no_first, plain, ours, ours_nt], timing


def scifact(root: Path, work: Path) -> dict:
    corpus, _, _ = load_dataset(root, "test")
    systems, indexes, timing = english_systems(corpus, work)
    out: dict = {"indexing": timing, "splits": {}}
    for split in ("train", "test"):
        _, queries, qrels = load_dataset(root, split)
        out["splits"][split] = {"queries": len(queries),
                                "systems": {name: score(queries, qrels, fn) for name, fn in systems.items()}}
    for index in indexes:
        index.close()
    return out


def multilingual(root: Path, work: Path) -> dict:
    """today vs pipeline vs plain porter per language of a BEIR-layout multilingual slice (one folder each)."""
    out = {}
    for lang_dir in sorted(p for p in root.iterdir() if (p / "corpus.jsonl").exists()):
        corpus, queries, qrels = load_dataset(lang_dir, "test")
        docs = prepare(corpus)
        today = Index(work / f"{lang_dir.name}-today.db", TODAY_SCHEMA, today_rows(docs), "title, text")
        plain = Index(work / f"{lang_dir.name}-plain.db", PLAIN_SCHEMA, plain_rows(docs), "text")
        rows, _ = pipeline_rows(docs)
        ours = Index(work / f"{lang_dir.name}-ours.db", tp.fts5_schema("t"), rows, ", ".join(tp.FTS5_COLUMNS))
        out[lang_dir.name] = {"documents": len(corpus), "queries": len(queries), "systems": {
            "plain FTS5 porter (OR, bm25)": score(queries, qrels, plain_search(plain)),
            "before: today's keyword mode": score(queries, qrels, today_search(today, legacy=True)),
            "pipeline": score(queries, qrels, pipeline_search(ours))}}
        for index in (today, plain, ours):
            index.close()
    return out


def print_table(title: str, systems: dict[str, dict]) -> None:
    print(f"\n{title}\n{'system':<44} {'nDCG@10':>8} {'R@100':>8} {'p50 ms':>7}")
    for name, m in systems.items():
        print(f"{name:<44} {m['ndcg@10']:>8.4f} {m['recall@100']:>8.4f} {m['p50_ms']:>7.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scifact", type=Path, default=Path("../shared/eval/scifact"))
    ap.add_argument("--multilingual", type=Path, help="a BEIR-layout folder per language (e.g. multilingual-qa)")
    ap.add_argument("--skip-scifact", action="store_true", help="only the multilingual slice (a quick look)")
    ap.add_argument("--json", help="results JSON (default bench/results/text_pipeline.json)")
    args = ap.parse_args()
    results: dict = {"tokenizer": tp.tokenizer_fingerprint(), "weights": tp.FTS5_WEIGHTS}
    with tempfile.TemporaryDirectory(prefix="trove-text-") as tmp:
        if not args.skip_scifact:
            results["scifact"] = scifact(args.scifact, Path(tmp))
        if args.multilingual:
            results["multilingual"] = multilingual(args.multilingual, Path(tmp))
    for split, data in results.get("scifact", {}).get("splits", {}).items():
        print_table(f"SciFact {split} ({data['queries']} queries)", data["systems"])
    if "scifact" in results:
        t = results["scifact"]["indexing"]
        print(f"\nindexing {t['chunks']} chunks: index_fields {t['index_fields_s']:.2f}s + FTS5 insert "
              f"{t['insert_pipeline_s']:.2f}s vs porter FTS5 insert {t['insert_today_s']:.2f}s -> "
              f"{(t['index_fields_s'] + t['insert_pipeline_s']) / t['insert_today_s']:.2f}x")
    for lang, data in results.get("multilingual", {}).items():
        print_table(f"{lang} ({data['documents']} passages, {data['queries']} queries)", data["systems"])
    save("text_pipeline", results, args.json)


if __name__ == "__main__":
    main()
