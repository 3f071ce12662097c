"""Dense candidates (pgvector HNSW, or every vector of a narrow scope) and the chunk rows that make results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import psycopg

from desktop_app.core.embed.base import MAX_WINDOWS
from desktop_app.core.store.postgres import side
from desktop_app.core.store.postgres.base import PostgresBase
from desktop_app.core.store.postgres.documents import metadata_json
from desktop_app.core.store.postgres.folders import MY_FOLDER_IDS
from desktop_app.core.store.postgres.keywords import filter_sql
from desktop_app.core.store.rows import ChunkRow, Filters
from desktop_app.core.store.side import vector_index as vi

EXACT_SCOPE = 5000  # chunks: up to this many, a search scoped to paths compares every vector of the scope


def dense_sql(extra: str = "") -> str:
    """The %(k)s window vectors nearest to %(v)s by cosine distance (HNSW), joined to documents when filtered."""
    if not extra:
        return "SELECT chunk_id, embedding <=> %(v)s AS dist FROM chunk_vectors ORDER BY dist LIMIT %(k)s"
    return ("SELECT v.chunk_id, v.embedding <=> %(v)s AS dist FROM chunk_vectors v "
            "JOIN chunks c ON c.id = v.chunk_id JOIN documents d ON d.id = c.document_id "
            "WHERE true" + extra + " ORDER BY dist LIMIT %(k)s")


SCOPE_SQL = "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.embedded"
# Every window of these chunks compared one by one (the distance is in an aggregate: no index, no approximation).


def slice_exact_sql(extra: str = "") -> str:
    """The %(n)s chunks nearest to %(v)s among every window a search may see, compared one by one: what row-level
    security lets this role read, narrowed by the filters. For when the HNSW scan, even iterating, ended before it
    found enough of them (hnsw.max_scan_tuples stops it in a thin slice)."""
    where = ("" if not extra else " JOIN chunks c ON c.id = v.chunk_id JOIN documents d ON d.id = c.document_id "
             "WHERE true" + extra)
    return ("SELECT v.chunk_id, min(v.embedding <=> %(v)s) AS dist FROM chunk_vectors v" + where +
            " GROUP BY v.chunk_id ORDER BY dist, v.chunk_id LIMIT %(n)s")


EXACT_SQL = ("SELECT chunk_id, min(embedding <=> %(v)s) AS dist FROM chunk_vectors WHERE chunk_id = ANY(%(ids)s) "
             "GROUP BY chunk_id ORDER BY dist, chunk_id LIMIT %(n)s")


CHUNK_ROWS_SQL = (
    'SELECT c.id, c.text, c.page, c.ordinal, c.start, c."end", c.document_id, d.path, d.title, d.type, '
    "d.folder_id, d.metadata, f.machine_id, c.lang, c.label, c.ocr, d.container, d.part_label, d.doc_date::text, "
    "d.tags FROM chunks c "
    "JOIN documents d ON d.id = c.document_id JOIN folders f ON f.id = d.folder_id WHERE c.id = ANY(%s)")


class SearchSQL(PostgresBase):
    """Dense candidates, and the rows that make results. The HNSW scan iterates (hnsw.iterative_scan) past the
    windows a search may not see (row-level security, filters) until it has k of them; a slice too thin for that
    is compared exactly, so a search returns `limit` chunks whenever that many are there to see."""

    def dense_candidates(self, vector: np.ndarray, limit: int, *,
                         filters: Filters | None = None) -> list[tuple[int, float]]:
        """Nearest chunks by HNSW (cosine); score = cosine similarity of a chunk's best window.

        A narrow scope (a few files asked about) is searched exactly instead: its chunks' vectors are compared one
        by one, so a file that is far down the whole library's ranking still gets its best passages."""
        if limit <= 0:
            return []
        limit = int(limit)
        extra, args = filter_sql(filters)
        query = np.asarray(vector, dtype=np.float32)
        if filters and filters.by_document():
            exact = self._read(lambda c: _exact(c, extra, args, query, limit))
            if exact is not None:
                return exact
        if (index := self._read(lambda c: side.vector_side(self, c, len(query)))) is not None:
            found = self._read(lambda c: self._side_dense(c, index, query, limit, filters, extra, args))
            if found is not None:
                return found
        args["v"] = query
        k = limit * (MAX_WINDOWS if filters else 2)  # a chunk's windows share the k places
        rows, best = self._nearest_windows(extra, args, k)
        if len(best) < limit and len(rows) == k < limit * MAX_WINDOWS:
            k = limit * MAX_WINDOWS  # windows of the same chunks took the places: room for `limit` chunks' worth
            rows, best = self._nearest_windows(extra, args, k)
        if len(best) < limit and len(rows) < k:  # the scan ended early: a thin slice (or that small a library)
            return self._slice_exact(query, limit, extra, args)
        return list(best.items())[:limit]

    def _side_dense(self, conn: psycopg.Connection, index: vi.Loaded, query: np.ndarray, limit: int,
                    filters: Filters | None, extra: str, args: dict[str, Any]) -> list[tuple[int, float]] | None:
        """Candidates from this desktop's vector side index (exact cosines), re-read through row-level security;
        a filter's are the nearest of the rows it allows (postgres/side.py)."""
        allowed = None
        if filters:
            remembered = None if filters.by_document() else filters  # paths, dates, tags change without vectors
            allowed = index.mask(remembered, lambda: [int(r[0]) for r in conn.execute(SCOPE_SQL + extra, args)])
        return side.checked(conn, lambda n: vi.ann_candidates(index, query, n, allowed), limit)

    def _nearest_windows(self, extra: str, args: dict[str, Any],
                         k: int) -> tuple[list[tuple[int, float]], dict[int, float]]:
        """The HNSW scan's k nearest windows, and each chunk's best similarity among them, best first."""
        sql = dense_sql(extra)
        rows = self._read(lambda c: c.execute(sql, {**args, "k": k}, prepare=True).fetchall())
        best: dict[int, float] = {}
        for cid, dist in sorted(rows, key=lambda r: r[1]):  # relaxed order under an iterative scan: sort here
            best.setdefault(int(cid), 1.0 - float(dist))
        return rows, best

    def _slice_exact(self, query: np.ndarray, limit: int, extra: str,
                     args: dict[str, Any]) -> list[tuple[int, float]]:
        """Every window this search may see, compared one by one."""
        sql = slice_exact_sql(extra)
        rows = self._read(lambda c: c.execute(sql, {**args, "v": query, "n": limit}).fetchall())
        return [(int(cid), 1.0 - float(dist)) for cid, dist in rows]

    def document_chunks(self, path: str) -> list[tuple[int | None, str]]:
        """(page, text) of one document's chunks, in document order (empty when it is not indexed). Two desktops
        may each have a file at `path`: this machine's is read first."""
        def work(conn: psycopg.Connection) -> list[tuple[int | None, str]]:
            row = conn.execute(
                "SELECT d.id FROM documents d WHERE d.path = %(p)s ORDER BY d.folder_id IN (" + MY_FOLDER_IDS +
                ") DESC, d.id LIMIT 1", {"p": path, "m": self.machine_id}).fetchone()
            if row is None:
                return []
            return [(r[0], r[1]) for r in conn.execute(
                "SELECT page, text FROM chunks WHERE document_id = %s ORDER BY ordinal", (row[0],))]
        return self._read(work)

    def chunks_around(self, chunk_id: int, reach: int = 1) -> list[tuple[int | None, int, int, str]]:
        """(page, start, end, text) of a chunk and its neighbours within `reach`, in document order (row security
        leaves out a chunk this person may not read, and so its neighbours)."""
        rows = self._read(lambda c: c.execute(
            'SELECT n.page, n.start, n."end", n.text FROM chunks c JOIN chunks n ON n.document_id = c.document_id '
            "AND n.ordinal BETWEEN c.ordinal - %(r)s AND c.ordinal + %(r)s WHERE c.id = %(c)s ORDER BY n.ordinal",
            {"r": reach, "c": chunk_id}).fetchall())
        return [(r[0], int(r[1]), int(r[2]), r[3]) for r in rows]

    def document_titles(self, document_ids: Sequence[int]) -> dict[int, str]:
        """The stored titles of these documents, by id (row security leaves out what this person may not see)."""
        rows = self._read(lambda c: c.execute("SELECT id, title FROM documents WHERE id = ANY(%s)",
                                              (list(document_ids),)).fetchall())
        return {int(r[0]): r[1] or "" for r in rows}

    def chunk_rows(self, chunk_ids: Sequence[int]) -> dict[int, ChunkRow]:
        """Chunks with their documents (and the machine whose disk holds the file), by id."""
        if not chunk_ids:
            return {}
        rows = self._read(lambda c: c.execute(CHUNK_ROWS_SQL, (list(chunk_ids),), prepare=True).fetchall())
        return {int(r[0]): ChunkRow(chunk_id=int(r[0]), text=r[1], page=r[2], ordinal=int(r[3]), start=int(r[4]),
                                    end=int(r[5]), document_id=int(r[6]), path=r[7], title=r[8], type=r[9],
                                    folder_id=int(r[10]), metadata=metadata_json(r[11]), machine_id=r[12],
                                    lang=r[13], label=r[14], ocr=bool(r[15]), container=r[16] or "",
                                    part_label=r[17], doc_date=r[18] or "", tags=tuple(r[19] or ()))
                for r in rows}


def _exact(conn: psycopg.Connection, extra: str, args: dict[str, Any], query: np.ndarray,
           limit: int) -> list[tuple[int, float]] | None:
    """The best chunks of a narrow filter by exact cosine similarity; None when it allows too many to compare."""
    ids = [int(r[0]) for r in conn.execute(SCOPE_SQL + extra + " LIMIT %(cap)s", {**args, "cap": EXACT_SCOPE + 1})]
    if len(ids) > EXACT_SCOPE:
        return None
    if not ids:
        return []
    rows = conn.execute(EXACT_SQL, {"v": query, "ids": ids, "n": limit}).fetchall()
    return [(int(cid), 1.0 - float(dist)) for cid, dist in rows]
