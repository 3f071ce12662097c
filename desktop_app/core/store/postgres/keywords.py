"""The keyword index of the PostgreSQL engine: a tsvector per chunk of core/text's tokens, searched with a tsquery
of the same pipeline's Query, ranked by ts_rank, and rebuilt from the stored text when the pipeline changes.

The server never segments, folds or stems (its `simple` parser would split Thai and Arabic at their marks):
core/text does, with the code the embedded engine's FTS5 index uses, so a Thai, Chinese or Arabic word and an
exact term match the same chunks on both engines. Each field's tokens go straight into a tsvector literal,
labelled with the field's weight (`text.PG_LABELS`: title A, words B, stems C, grams D); `text.to_tsquery`
restricts each query term to the title and its own field, as FTS5's column filters do. Every token is quoted,
so no input can raise.

ts_rank (term frequency, length-normalised) rather than ts_rank_cd: cover density was measured 200x slower on
chunks that repeat their words (418 ms against 2 ms for 700 matches), and keyword search ranks every match.
What a chunk's terms hold depends on the pipeline's version, recorded as meta.fts_tokenizer; when it differs,
`rebuild_keywords` rewrites them a batch per transaction (resumable through meta.fts_rebuilt_to) while search
uses what is there.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import psycopg

from desktop_app.core import text as tp
from desktop_app.core.ingest.extract import index_title
from desktop_app.core.store.postgres import side
from desktop_app.core.store.postgres.base import PostgresBase
from desktop_app.core.store.postgres.connect import scalar
from desktop_app.core.store.rows import Filters
from desktop_app.core.text.render import tsquery_groups

MAX_POSITION = 16383  # the largest position a tsvector stores
MAX_POSITIONS_PER_TOKEN = 255
REBUILD_LOCK = 0x7472_6F78  # serialises two desktops rebuilding the keyword index at once
TITLE_MATCH_SIMILARITY = 0.4  # pg_trgm word similarity above which a misspelt title still matches
# A query term in more than this share of chunks ("show", "effect") is left out of the match, as BM25's IDF all
# but ignores it: OR'ed, it would make half the library match and be ranked row by row. Shares come from the
# planner's statistics of chunks.terms (kept by ANALYZE / autovacuum), re-read every COMMON_TTL seconds.
COMMON_SHARE = 0.05
COMMON_TTL = 300.0


# ---- literals the server takes as they are ---------------------------------------------------------------------


def _quote(token: str) -> str:
    """A lexeme in tsvector/tsquery literal syntax: single-quoted, quotes doubled, backslashes escaped."""
    return "'" + token.replace("\\", "\\\\").replace("'", "''") + "'"


def tsvector_literal(fields: Sequence[tuple[str, str]]) -> str:
    """A tsvector literal of (weight label, space-separated tokens) pairs: positions run on across fields, each
    labelled with its field's weight (D, the default, is written bare)."""
    positions: dict[str, list[str]] = {}
    pos = 0
    for label, tokens in fields:
        suffix = "" if label == "D" else label
        for token in tokens.split():
            pos = min(pos + 1, MAX_POSITION)
            slots = positions.setdefault(token, [])
            if len(slots) < MAX_POSITIONS_PER_TOKEN:
                slots.append(f"{pos}{suffix}")
    return " ".join(f"{_quote(tok)}:{','.join(slots)}" for tok, slots in positions.items())


@lru_cache(maxsize=4096)
def _title_tokens(fts_title: str) -> str:
    return tp.index_fields(fts_title, "")["title"]


def chunk_terms(fts_title: str, text: str) -> str:
    """The tsvector literal of one chunk: its document's title tokens and its text's, per field of core/text."""
    fields = {**tp.index_fields("", text), "title": _title_tokens(fts_title)}
    return tsvector_literal([(tp.PG_LABELS[name], fields[name]) for name in tp.FTS5_COLUMNS])


def rank_weights(title_weight: float) -> str:
    """ts_rank's weights {D, C, B, A} (grams, stems, words, title): FTS5's column weights with the title's as
    given, scaled into 0..1 (ts_rank refuses a weight above 1)."""
    weights = {**tp.FTS5_WEIGHTS, "title": max(float(title_weight), 0.0)}
    by_label = {tp.PG_LABELS[name]: weight for name, weight in weights.items()}
    top = max(by_label.values()) or 1.0
    return "{" + ",".join("%g" % (by_label[label] / top) for label in "DCBA") + "}"


def keyword_sql(extra: str = "", groups: int = 1) -> str:
    """Chunks matching a tsquery (%(q)s), ranked by ts_rank with weights %(w)s, best %(n)s. With several
    weight groups (`text.tsquery_groups`: tsquery %(gK)s, share %(sK)s) the rank is Σ share · ts_rank(group)."""
    join = " JOIN documents d ON d.id = c.document_id" if extra else ""
    rank = "ts_rank(%(w)s::float4[], c.terms, q, 1)" if groups <= 1 else " + ".join(
        f"%(s{k})s * ts_rank(%(w)s::float4[], c.terms, CAST(%(g{k})s AS tsquery), 1)" for k in range(groups))
    return (f"SELECT c.id, {rank} AS r FROM chunks c" + join +
            ", CAST(%(q)s AS tsquery) q WHERE c.terms @@ q" + extra + " ORDER BY r DESC, c.id LIMIT %(n)s")


def _like_prefix(prefix: str) -> str:
    """A LIKE pattern matching every text that starts with `prefix`."""
    return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def filter_sql(filters: Filters | None) -> tuple[str, dict[str, Any]]:
    """` AND …` clauses over `c` (chunks) and `d` (documents) for a Filters, and their named arguments."""
    if not filters:
        return "", {}
    clauses: list[str] = []
    args: dict[str, Any] = {}
    for column, name, values in (("d.folder_id", "folders", filters.folder_ids), ("d.type", "types", filters.types),
                                 ("c.lang", "langs", filters.langs)):
        if values:
            clauses.append(f"{column} = ANY(%({name})s)")
            args[name] = list(values)
    if filters.paths:  # a document's own path, the file it is inside of, or a folder above it
        clauses.append("(d.path = ANY(%(paths)s) OR d.container = ANY(%(paths)s) OR d.path LIKE ANY(%(below)s))")
        args["paths"] = list(filters.paths)
        args["below"] = [_like_prefix(p.rstrip(os.sep) + os.sep) for p in filters.paths]
    _query_language_sql(filters, clauses, args)
    return " AND " + " AND ".join(clauses), args


# A document's date: its own, else its file's modified day (UTC).
_DOC_DATE = "COALESCE(d.doc_date, (to_timestamp(d.mtime_ns / 1e9) AT TIME ZONE 'UTC')::date)"
# The document's path below its library folder: a tag is also a folder name there.
_BELOW_FOLDER = "lower(substr(d.path, length((SELECT f.path FROM folders f WHERE f.id = d.folder_id)) + 1))"


def _query_language_sql(filters: Filters, clauses: list[str], args: dict[str, Any]) -> None:
    """The clauses of the query language's filters: path texts, the date range and tags."""
    for i, group in enumerate(filters.path_has):
        clauses.append(f"EXISTS (SELECT 1 FROM unnest(%(has{i})s::text[]) h WHERE strpos(lower(d.path), h) > 0)")
        args[f"has{i}"] = list(group)
    if filters.date_from:
        clauses.append(f"{_DOC_DATE} >= %(date_from)s::date")
        args["date_from"] = filters.date_from
    if filters.date_to:
        clauses.append(f"{_DOC_DATE} < %(date_to)s::date")
        args["date_to"] = filters.date_to
    if filters.tags:
        clauses.append(f"(d.tags && %(tags)s::text[] OR EXISTS (SELECT 1 FROM unnest(%(tag_dirs)s::text[]) t "
                       f"WHERE strpos({_BELOW_FOLDER}, t) > 0))")
        args["tags"] = list(filters.tags)
        args["tag_dirs"] = [f"{os.sep}{t}{os.sep}" for t in filters.tags]


# ---- the engine's keyword side ---------------------------------------------------------------------------------


class KeywordSQL(PostgresBase):
    """Keyword candidates and the keyword index's upkeep.

    Ranks do not depend on rows a person may not see: ts_rank reads only the chunk it ranks, and the statistics
    that leave common terms out (pg_stats) are withheld by PostgreSQL itself from a role that row-level security
    filters, so a person's query keeps all its terms. The rebuild after a pipeline change is the administrator's
    (a person sees, and could rewrite, only part of the index)."""

    person: bool = False

    def keyword_candidates(self, query: str, limit: int, *, title_weight: float = 2.0,
                           filters: Filters | None = None) -> list[tuple[int, float]]:
        """Chunks matching the query's terms, by ts_rank over the pipeline's fields (higher is better); a term
        the query repeats weighs as often as it is said (`text.tsquery_groups`), as in FTS5's bm25(). Common
        terms are left out (COMMON_SHARE) unless that leaves fewer than `limit` rows, as a filter can."""
        full = tp.build_query(query)
        kept = self._without_common(full)
        if tp.to_tsquery(kept) is None or limit <= 0:
            return []
        extra, filter_args = filter_sql(filters)

        def ranked(conn: psycopg.Connection, terms: tp.Query) -> list[tuple[int, float]]:
            groups = tsquery_groups(terms)
            args = dict(filter_args, q=tp.to_tsquery(terms), w=rank_weights(title_weight), n=int(limit))
            if len(groups) > 1:
                for k, (share, group) in enumerate(groups):
                    args.update({f"s{k}": share, f"g{k}": group})
            return [(int(cid), float(r)) for cid, r in conn.execute(keyword_sql(extra, len(groups)), args,
                                                                     prepare=True)]

        def work(conn: psycopg.Connection) -> list[tuple[int, float]]:
            if title_weight == tp.FTS5_WEIGHTS["title"] and not (filters and filters.by_document()) and \
                    (index := side.keyword_side(self, conn)) is not None:  # BM25 over this desktop's copy
                found = side.checked(conn, lambda n: index.search(full, n, filters), int(limit))
                if found is not None:
                    return found
            hits = ranked(conn, kept)
            if len(hits) < limit and kept != full:  # the common terms may hold the rows the rest do not
                hits = ranked(conn, full)
            if not hits and self.features.get("trgm"):
                hits = _title_matches(conn, query, limit, extra, dict(filter_args, n=int(limit)))
            return hits
        return self._read(work)

    def listed_documents(self, filters: Filters, limit: int) -> list[tuple[int, float]]:
        """The first chunk of each document a filter allows (and this person may read), newest document date first
        (a query of filters only, such as `tag:launch last month`); score 1.0."""
        extra, args = filter_sql(filters)
        rows = self._read(lambda c: c.execute(
            f"SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.ordinal = 0{extra} "
            f"ORDER BY {_DOC_DATE} DESC, d.path LIMIT %(n)s", {**args, "n": int(limit)}).fetchall())
        return [(int(r[0]), 1.0) for r in rows]

    def _without_common(self, query: tp.Query) -> tp.Query:
        """The query less its terms in more than COMMON_SHARE of chunks (all of them if that is every term)."""
        shares = self._term_shares()
        if not shares:
            return query
        kept = tuple(t for t in query.terms if shares.get(t.token, 0.0) <= COMMON_SHARE)
        return tp.Query(kept) if kept else query

    def _term_shares(self) -> dict[str, float]:
        """Lexeme → share of chunks that hold it, for the most common lexemes (cached)."""
        cached = getattr(self, "_shares", None)
        if cached is not None and time.monotonic() - cached[0] < COMMON_TTL:
            return cached[1]
        row = self._read(lambda c: c.execute(
            "SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats "
            "WHERE schemaname = current_schema() AND tablename = 'chunks' AND attname = 'terms'").fetchone())
        shares = dict(zip(row[0], row[1], strict=False)) if row and row[0] else {}
        self._shares = (time.monotonic(), shares)
        return shares

    def keyword_rebuild_pending(self) -> int:
        """Chunks whose terms were made by another text pipeline version (0 when the index is current)."""
        if self.person:
            return 0  # the administrator's desktop (or trove server) rebuilds the whole index

        def work(conn: psycopg.Connection) -> int:
            meta = _rebuild_meta(conn)
            if meta.get("fts_tokenizer") == tp.tokenizer_fingerprint():
                return 0
            after = int(meta.get("fts_rebuilt_to") or 0)
            return int(scalar(conn.execute("SELECT count(*) FROM chunks WHERE id > %s", (after,))))
        return self._read(work)

    def rebuild_keywords(self, limit: int) -> int:
        """Rewrite the terms (and language) of up to `limit` chunks from their stored text, in one transaction;
        returns how many are left."""
        fingerprint = tp.tokenizer_fingerprint()
        if self.person:
            return 0

        def work(conn: psycopg.Connection) -> int:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (REBUILD_LOCK,))
            meta = _rebuild_meta(conn)
            if meta.get("fts_tokenizer") == fingerprint:
                return 0
            after = int(meta.get("fts_rebuilt_to") or 0)
            rows = conn.execute(
                "SELECT c.id, c.text, d.title, d.path FROM chunks c JOIN documents d ON d.id = c.document_id "
                "WHERE c.id > %s ORDER BY c.id LIMIT %s", (after, int(limit))).fetchall()
            if rows:
                conn.execute(
                    "UPDATE chunks SET terms = u.v::tsvector, lang = u.l FROM unnest(%s::bigint[], %s::text[], "
                    "%s::text[]) AS u(id, v, l) WHERE chunks.id = u.id",
                    ([r[0] for r in rows], [chunk_terms(index_title(r[2], Path(r[3])), r[1]) for r in rows],
                     [tp.detect_language(r[1]) for r in rows]))
                _set_meta(conn, "fts_rebuilt_to", str(rows[-1][0]))
                left = int(scalar(conn.execute("SELECT count(*) FROM chunks WHERE id > %s", (rows[-1][0],))))
            else:
                left = 0
            if not left:
                _set_meta(conn, "fts_tokenizer", fingerprint)
                conn.execute("DELETE FROM meta WHERE key = 'fts_rebuilt_to'")
            return left
        return int(self._write(work, derived=True))

    def languages(self) -> list[tuple[str, int]]:
        """Each chunk language in the library with its chunk count, most chunks first."""
        rows = self._read(lambda c: c.execute(
            "SELECT lang, sum(chunks) AS n FROM lang_counts WHERE lang <> '' GROUP BY lang HAVING sum(chunks) > 0 "
            "ORDER BY n DESC, lang").fetchall())
        return [(r[0], int(r[1])) for r in rows]


def _rebuild_meta(conn: psycopg.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('fts_tokenizer', 'fts_rebuilt_to')"))


def _set_meta(conn: psycopg.Connection, key: str, value: str) -> None:
    conn.execute("INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                 (key, value))


def _title_matches(conn: psycopg.Connection, query: str, limit: int, extra: str,
                   args: dict[str, Any]) -> list[tuple[int, float]]:
    """Nothing matched the words: first chunks of documents whose title is close to the query (a typo)."""
    text = " ".join(query.split())[:200].lower()
    if len(text) < 3:
        return []
    rows = conn.execute(
        "SELECT c.id, word_similarity(%(t)s, lower(d.title)) AS s FROM documents d "
        "JOIN chunks c ON c.document_id = d.id AND c.ordinal = 0 "
        "WHERE %(t)s <%% lower(d.title) AND word_similarity(%(t)s, lower(d.title)) >= %(min)s" + extra +
        " ORDER BY s DESC, c.id LIMIT %(n)s", {**args, "t": text, "min": TITLE_MATCH_SIMILARITY}).fetchall()
    return [(int(cid), float(s) * 1e-3) for cid, s in rows]  # below any real keyword match
