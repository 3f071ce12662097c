"""The keyword index of the SQLite engine: FTS5 rows of core/text's fields, written, searched and rebuilt.

What an FTS row holds depends on the text pipeline's version, not on the schema: meta.fts_tokenizer records
the fingerprint the rows were made with. When it differs, `rebuild_keywords` refills the table from the stored
chunk text, a batch per transaction, resumable (meta.fts_rebuilt_to), while search uses what is there.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from desktop_app.core import text as tp
from desktop_app.core.ingest.extract import index_title
from desktop_app.core.store.rows import Filters
from desktop_app.core.store.side.base import of_store
from desktop_app.core.store.side.keyword_index import Hit, Keywords
from desktop_app.core.store.sqlite.allowed import Allowed, AllowedChunks
from desktop_app.core.store.sqlite.base import SQLiteBase
from desktop_app.core.store.sqlite.connect import Connection
from desktop_app.core.store.sqlite.keyword import bm25 as fts5_bm25
from desktop_app.core.store.sqlite.keyword import pending as pending_keywords
from desktop_app.core.store.sqlite.keyword.topk import TopK
from desktop_app.core.store.sqlite.side import BELOW_FOLDER, DOC_DATE, DatabaseKeywords, bump_keyword_generation

# The side index's candidates re-ranked by bm25(): this many times what was asked (FTS5's top k is nearly always in
# the side index's top 2k: docs/keyword-scale.md).
RESCORE = 2
# Side index hits read for a document filter the side index does not take (a path; a date or tag it does not hold)
# before FTS5 answers it instead.
# A filter that leaves out the query's best documents needs a deep read: at 1M chunks (bench/scale.py, whose tags
# and dates follow the topic: every copy of an abstract has its tag) tag-filtered keyword search took 31.7 / 2,582 ms
# p50 / p95 at 20,000 (FTS5 answering the deep ones) and 33.0 / 70.7 at 100,000 (max 166 ms against 5.4 s).
MAX_SIDE_DEPTH = 100_000


def filter_sql(filters: Filters | None) -> tuple[str, list[object]]:
    """` AND …` clauses over `c` (chunks) and `d` (documents) for a Filters, and their arguments."""
    if not filters:
        return "", []
    clauses: list[str] = []
    args: list[object] = []
    for column, values in (("d.folder_id", filters.folder_ids), ("d.type", filters.types), ("c.lang", filters.langs)):
        if values:
            clauses.append(f"{column} IN ({','.join('?' * len(values))})")
            args.extend(values)
    if filters.paths:
        clauses.append("(" + " OR ".join("d.path = ? OR d.container = ? OR substr(d.path, 1, length(?)) = ?"
                                          for _ in filters.paths) + ")")
        for path in filters.paths:
            prefix = path.rstrip(os.sep) + os.sep
            args.extend((path, path, prefix, prefix))
    _query_language_sql(filters, clauses, args)
    return " AND " + " AND ".join(clauses), args




def _query_language_sql(filters: Filters, clauses: list[str], args: list[object]) -> None:
    """The clauses of the query language's filters: path texts, the date range and tags (lower() folds ASCII
    only in SQLite: a path's other capitals must be typed as they are)."""
    for group in filters.path_has:
        clauses.append("(" + " OR ".join("instr(lower(d.path), ?) > 0" for _ in group) + ")")
        args.extend(group)
    if filters.date_from:
        clauses.append(f"{DOC_DATE} >= ?")
        args.append(filters.date_from)
    if filters.date_to:
        clauses.append(f"{DOC_DATE} < ?")
        args.append(filters.date_to)
    if filters.tags:
        clauses.append("(" + " OR ".join(f"instr(d.tags, ?) > 0 OR instr({BELOW_FOLDER}, ?) > 0"
                                         for _ in filters.tags) + ")")
        for tag in filters.tags:
            args.extend((f"|{tag}|", f"{os.sep}{tag}{os.sep}"))


class KeywordSQL(SQLiteBase):
    """Keyword candidates and the keyword index's upkeep."""

    def keyword_candidates(self, query: str, limit: int, *, title_weight: float = 2.0,
                           filters: Filters | None = None) -> list[tuple[int, float]]:
        """Chunks matching the query's terms, by BM25 over the pipeline's fields (higher is better; ties by chunk
        id). A large library's keyword side index answers when it can (side/keyword_index.py); otherwise FTS5, where
        keyword_topk.TopK answers from the rare terms' rows when it can prove the top k exact (score = -bm25)."""
        terms = tp.build_query(query)
        match = tp.to_fts5(terms)
        if not match or limit <= 0:
            return []
        rank = tp.fts5_rank("chunks_fts", {"title": title_weight})
        extra, args = filter_sql(filters)
        join = " JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.document_id" if extra else ""
        def work(conn: Connection) -> list[tuple[int, float]]:
            if (side := self._keyword_side(conn, title_weight)) is not None:
                allowed = self._allowed_chunks(conn, filters) \
                    if filters and filters.by_document() and not side.takes(filters) else None
                ranked = _ranked_as_fts5(conn, side, terms, int(limit), filters, allowed)
                if ranked is not None:
                    return ranked
            plan = TopK(conn, rank, join=join, extra=extra, args=args)
            hits = plan.search(terms, int(limit))  # exact top k from the rare terms' rows, or None
            if hits is None:
                hits = plan.plain(match, int(limit))
            return hits
        return self._read(work)

    def _keyword_side(self, conn: Connection, title_weight: float) -> Keywords | None:
        """The keyword side index (side/keyword_index.py) when it can answer: it is current and the title weight is
        the one it was built with."""
        if self.path is None or title_weight != tp.FTS5_WEIGHTS["title"]:
            return None
        path = self.path
        return of_store(self, "_keyword_index", lambda: DatabaseKeywords(path)).usable(conn)

    def _allowed_chunks(self, conn: Connection, filters: Filters) -> Allowed:
        """The chunks a document filter allows (allowed.py: remembered until a document changes)."""
        return of_store(self, "_allowed", AllowedChunks).of(conn, filters, filter_sql(filters))

    def listed_documents(self, filters: Filters, limit: int) -> list[tuple[int, float]]:
        """The first chunk of each document a filter allows, newest document date first (a query of filters
        only, such as `tag:launch last month`); score 1.0."""
        extra, args = filter_sql(filters)
        rows = self._read(lambda c: c.execute(
            f"SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.ordinal = 0{extra} "
            f"ORDER BY {DOC_DATE} DESC, d.path LIMIT ?", [*args, int(limit)]).fetchall())
        return [(int(r[0]), 1.0) for r in rows]

    def keyword_rebuild_pending(self) -> int:
        """Chunks whose keyword rows were made by another text pipeline version (0 when the index is current)."""
        def work(conn: Connection) -> int:
            meta = _rebuild_meta(conn)
            if meta.get("fts_tokenizer") == tp.tokenizer_fingerprint():
                return 0
            after = int(meta.get("fts_rebuilt_to") or 0)
            return int(conn.execute("SELECT COUNT(*) FROM chunks WHERE id > ?", (after,)).fetchone()[0])
        return self._read(work)

    def rebuild_keywords(self, limit: int) -> int:
        """Rewrite the keyword rows of up to `limit` chunks (one transaction); returns how many are left."""
        fingerprint = tp.tokenizer_fingerprint()

        def work(conn: Connection) -> int:
            meta = _rebuild_meta(conn)
            if meta.get("fts_tokenizer") == fingerprint:
                return 0
            after = int(meta.get("fts_rebuilt_to") or 0)
            rows = conn.execute(
                "SELECT c.id, c.text, d.title, d.path FROM chunks c JOIN documents d ON d.id = c.document_id "
                "WHERE c.id > ? ORDER BY c.id LIMIT ?", (after, int(limit))).fetchall()
            for cid, text, title, path in rows:
                pending_keywords.write_row(conn, cid, index_title(title, Path(path)), text)
                conn.execute("UPDATE chunks SET lang = ? WHERE id = ?", (tp.detect_language(text), cid))
            if rows:
                bump_keyword_generation(conn)
                _set_meta(conn, "fts_rebuilt_to", str(rows[-1][0]))
                left = int(conn.execute("SELECT COUNT(*) FROM chunks WHERE id > ?", (rows[-1][0],)).fetchone()[0])
            else:
                left = 0
            if not left:
                _set_meta(conn, "fts_tokenizer", fingerprint)
                conn.execute("DELETE FROM meta WHERE key = 'fts_rebuilt_to'")
            return left
        return int(self._write(work, derived=True))

    def languages(self) -> list[tuple[str, int]]:
        """Each chunk language in the library with its chunk count, most chunks first (kept by triggers)."""
        rows = self._read(lambda c: c.execute(
            "SELECT lang, chunks FROM lang_counts WHERE lang != '' AND chunks > 0 "
            "ORDER BY chunks DESC, lang").fetchall())
        return [(r[0], int(r[1])) for r in rows]


def _ranked_as_fts5(conn: Connection, side: Keywords, terms: tp.Query, limit: int, filters: Filters | None,
                    allowed: Allowed | None = None) -> list[tuple[int, float]] | None:
    """The side index's best RESCORE x `limit` chunks, ranked by bm25() as FTS5 scores them (fts5_bm25.py), so
    the side index changes how fast a large library answers, not what it answers. A document filter (`allowed`:
    the chunks it allows) keeps the side index's best allowed chunks; None when too few are among its best
    MAX_SIDE_DEPTH (a narrow filter: FTS5 answers it exactly). Each candidate's column terms come from the side
    index (stored when it was built); from its stored text only when the index has none."""
    found = side.hits(terms, RESCORE * limit, filters) if allowed is None else \
        _allowed_hits(side, terms, RESCORE * limit, filters, allowed)
    if found is None:
        return None
    stats = fts5_bm25.table_stats(conn) if found else None
    if stats is None:
        return [(h.chunk, h.score) for h in found[:limit]]
    stored = side.terms(found)
    counts: list[tuple[int, fts5_bm25.ColumnCounts]] = \
        list(zip((h.chunk for h in found), stored, strict=True)) if stored is not None else \
        _counts_from_text(conn, [h.chunk for h in found])
    return fts5_bm25.scores(terms, counts, side.term_rows(terms), stats[0], sum(stats[1]))[:limit]


def _counts_from_text(conn: Connection, chunks: list[int]) -> list[tuple[int, fts5_bm25.ColumnCounts]]:
    """Column counts of these chunks made again from their stored text and title (the text pipeline per chunk)."""
    rows = conn.execute("SELECT c.id, c.text, d.title, d.path FROM chunks c JOIN documents d ON d.id = c.document_id "
                        "WHERE c.id IN (SELECT value FROM json_each(?))", (json.dumps(chunks),))
    return [(cid, fts5_bm25.column_counts(tp.index_fields(index_title(title, Path(path)), text)))
            for cid, text, title, path in rows]


def _allowed_hits(side: Keywords, terms: tp.Query, want: int, filters: Filters | None,
                  allowed: Allowed) -> list[Hit] | None:
    """The side index's best `want` chunks among `allowed`, read ever deeper (the folder, type and language parts of
    the filter inside the index); None when they are not all within its best MAX_SIDE_DEPTH."""
    if not allowed:
        return []
    depth = want * 4
    while True:
        kept, read = side.hits_among(terms, depth, filters, allowed.set)
        if len(kept) >= want or read < depth:  # enough, or every matching chunk was read
            return kept[:want]
        if depth >= MAX_SIDE_DEPTH:
            return None
        depth = min(depth * 4, MAX_SIDE_DEPTH)


def _rebuild_meta(conn: Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('fts_tokenizer', 'fts_rebuilt_to')"))


def _set_meta(conn: Connection, key: str, value: str) -> None:
    conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                 (key, value))
