"""Candidate lists and hydration for search: tsvector + GIN ranked by ts_rank, pgvector HNSW, chunk rows.

ts_rank (term frequency, length-normalised) rather than ts_rank_cd: cover density was measured 200x slower on
chunks that repeat their words (418 ms against 2 ms for 700 matches), and keyword search ranks every match.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import psycopg

from desktop_app.core.embed.base import MAX_WINDOWS
from desktop_app.core.store.postgres.base import PostgresBase
from desktop_app.core.store.postgres.documents import metadata_json
from desktop_app.core.store.postgres.keywords import Term, query_terms, tsquery_literal
from desktop_app.core.store.rows import ChunkRow, Filters

TITLE_MATCH_SIMILARITY = 0.4  # pg_trgm word similarity above which a misspelt title still matches
# A query term in more than this share of chunks ("show", "effect") is left out of the match, as BM25's IDF all
# but ignores it: OR'ed, it would make half the library match and be ranked row by row. Shares come from the
# planner's statistics of chunks.terms (kept by ANALYZE / autovacuum), re-read every COMMON_TTL seconds.
COMMON_SHARE = 0.05
COMMON_TTL = 300.0


def filter_sql(filters: Filters | None) -> tuple[str, dict[str, Any]]:
    """` AND …` clauses over `d` (documents) for a Filters, and their named arguments."""
    if not filters:
        return "", {}
    clauses: list[str] = []
    args: dict[str, Any] = {}
    if filters.folder_ids:
        clauses.append("d.folder_id = ANY(%(folders)s)")
        args["folders"] = list(filters.folder_ids)
    if filters.types:
        clauses.append("d.type = ANY(%(types)s)")
        args["types"] = list(filters.types)
    return " AND " + " AND ".join(clauses), args


def rank_weights(title_weight: float) -> str:
    """ts_rank's {D, C, B, A} weights: the text (D) against the title (A), scaled into 0..1."""
    w = max(float(title_weight), 1e-3)
    return "{%g,0,0,%g}" % ((1.0, 1.0 / w) if w < 1 else (1.0 / w, 1.0))


def keyword_sql(extra: str = "") -> str:
    """Chunks matching a tsquery (%(q)s), ranked by ts_rank with weights %(w)s, best %(n)s."""
    join = " JOIN documents d ON d.id = c.document_id" if extra else ""
    return ("SELECT c.id, ts_rank(%(w)s::float4[], c.terms, q, 1) AS r FROM chunks c" + join +
            ", CAST(%(q)s AS tsquery) q WHERE c.terms @@ q" + extra + " ORDER BY r DESC, c.id LIMIT %(n)s")


def dense_sql(extra: str = "") -> str:
    """The %(k)s window vectors nearest to %(v)s by cosine distance (HNSW), joined to documents when filtered."""
    if not extra:
        return "SELECT chunk_id, embedding <=> %(v)s AS dist FROM chunk_vectors ORDER BY dist LIMIT %(k)s"
    return ("SELECT v.chunk_id, v.embedding <=> %(v)s AS dist FROM chunk_vectors v "
            "JOIN chunks c ON c.id = v.chunk_id JOIN documents d ON d.id = c.document_id "
            "WHERE true" + extra + " ORDER BY dist LIMIT %(k)s")


CHUNK_ROWS_SQL = (
    'SELECT c.id, c.text, c.page, c.ordinal, c.start, c."end", c.document_id, d.path, d.title, d.type, '
    "d.folder_id, d.metadata, f.machine_id FROM chunks c JOIN documents d ON d.id = c.document_id "
    "JOIN folders f ON f.id = d.folder_id WHERE c.id = ANY(%s)")


class SearchSQL(PostgresBase):
    """Keyword and dense candidates, and the rows that make results."""

    def keyword_candidates(
        self, query: str, limit: int, *, title_weight: float = 2.0, filters: Filters | None = None
    ) -> list[tuple[int, float]]:
        """Chunks matching any query term, by ts_rank (length-normalised) over title + text; never raises."""
        tsquery = tsquery_literal(self._without_common(query_terms(query)))
        if tsquery is None or limit <= 0:
            return []
        extra, args = filter_sql(filters)
        args.update(q=tsquery, w=rank_weights(title_weight), n=int(limit))
        sql = keyword_sql(extra)

        def work(conn: psycopg.Connection) -> list[tuple[int, float]]:
            hits = [(int(cid), float(r)) for cid, r in conn.execute(sql, args, prepare=True)]
            if not hits and self.features.get("trgm"):
                hits = _title_matches(conn, query, limit, extra, args)
            return hits
        return self._read(work)

    def _without_common(self, terms: list[Term]) -> list[Term]:
        """The query's terms less those in more than COMMON_SHARE of chunks (all of them if that is every term)."""
        shares = self._term_shares()
        kept = [t for t in terms if shares.get(t.token, 0.0) <= COMMON_SHARE]
        return kept or terms

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

    def dense_candidates(
        self, vector: np.ndarray, limit: int, *, filters: Filters | None = None
    ) -> list[tuple[int, float]]:
        """Nearest chunks by HNSW (cosine); score = cosine similarity of a chunk's best window."""
        if limit <= 0:
            return []
        k = int(limit) * (MAX_WINDOWS if filters else 2)  # a chunk's windows share the k places
        extra, args = filter_sql(filters)
        args.update(v=np.asarray(vector, dtype=np.float32), k=k)
        sql = dense_sql(extra)
        rows = self._read(lambda c: c.execute(sql, args, prepare=True).fetchall())
        best: dict[int, float] = {}
        for cid, dist in sorted(rows, key=lambda r: r[1]):  # relaxed order with filters: sort here
            best.setdefault(int(cid), 1.0 - float(dist))
        return list(best.items())[: int(limit)]

    def chunk_rows(self, chunk_ids: Sequence[int]) -> dict[int, ChunkRow]:
        """Chunks with their documents (and the machine whose disk holds the file), by id."""
        if not chunk_ids:
            return {}
        rows = self._read(lambda c: c.execute(CHUNK_ROWS_SQL, (list(chunk_ids),), prepare=True).fetchall())
        return {int(r[0]): ChunkRow(chunk_id=int(r[0]), text=r[1], page=r[2], ordinal=int(r[3]), start=int(r[4]),
                                    end=int(r[5]), document_id=int(r[6]), path=r[7], title=r[8], type=r[9],
                                    folder_id=int(r[10]), metadata=metadata_json(r[11]), machine_id=r[12])
                for r in rows}


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
