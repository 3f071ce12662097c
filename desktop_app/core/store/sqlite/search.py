"""Dense candidates (sqlite-vec KNN) and the chunk rows that make search results."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from desktop_app.core.embed.base import MAX_WINDOWS
from desktop_app.core.store.rows import ChunkRow, Filters
from desktop_app.core.store.side.base import of_store
from desktop_app.core.store.side.vector_index import ann_candidates
from desktop_app.core.store.sqlite.allowed import Allowed, AllowedChunks
from desktop_app.core.store.sqlite.base import SQLiteBase
from desktop_app.core.store.sqlite.connect import Connection
from desktop_app.core.store.sqlite.keyword.fts5 import filter_sql
from desktop_app.core.store.sqlite.side import DatabaseVectors
from desktop_app.core.store.sqlite.vectors import chunk_vectors

VEC0_MAX_K = 4096  # sqlite-vec refuses a larger k in a KNN query
SQL_VARIABLES = 900  # ids per IN (...) statement, under SQLite's bound-parameter limit
CHUNK_ROWS_SQL = (
    "SELECT c.id, c.text, c.page, c.ordinal, c.start, c.end, c.lang, c.label, c.ocr, c.document_id, d.path, "
    "d.title, d.container, d.part_label, d.type, d.folder_id, d.metadata, d.doc_date, d.tags FROM chunks c "
    "JOIN documents d ON d.id = c.document_id")


class SearchSQL(SQLiteBase):
    """Dense candidates, and the rows that make results."""

    def dense_candidates(self, vector: np.ndarray, limit: int, *,
                         filters: Filters | None = None) -> list[tuple[int, float]]:
        """Nearest chunks by vec0 KNN; score = cosine similarity of normalised vectors (a chunk's best window).

        A narrow scope (a few files asked about) is searched exactly instead: its chunks' vectors are compared one
        by one, so a file that is far down the whole library's ranking still gets its best passages."""
        if limit <= 0:
            return []
        query = np.asarray(vector, dtype=np.float32)

        def work(conn: Connection) -> list[tuple[int, float]]:
            allowed = None
            if filters and filters.by_document():
                allowed = self._allowed_chunks(conn, filters)
                if len(allowed) <= EXACT_SCOPE:
                    return _exact(conn, query, allowed.sorted.tolist())[: int(limit)]
            ann = self._ann(conn, query, int(limit), filters, allowed)
            if ann is not None:
                return ann
            k = min(int(limit) * (MAX_WINDOWS if filters else 2), VEC0_MAX_K)  # a chunk's windows share the k places
            rows = conn.execute("SELECT rowid, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ? "
                                "ORDER BY distance", (query.tobytes(), k)).fetchall()
            best: dict[int, float] = {}
            for rowid, dist in rows:  # nearest first: a chunk's first window here is its best (max-sim)
                best.setdefault(int(rowid) // MAX_WINDOWS, 1.0 - float(dist) ** 2 / 2.0)
            hits = list(best.items())
            if filters:
                hits = _keep_filtered(conn, hits, filters)
            return hits[: int(limit)]
        return self._read(work)

    def _ann(self, conn: Connection, query: np.ndarray, limit: int, filters: Filters | None,
             allowed: Allowed | None) -> list[tuple[int, float]] | None:
        """Candidates from the side index (side/vector_index.py); None while there is none: vec0's exact KNN answers.
        A filter's candidates are the nearest of the rows it allows (k results whenever k exist). A document
        filter's rows are remembered with the documents generation they were read at (paths, dates and tags change
        without the vectors)."""
        if self.path is None:
            return None
        path = self.path
        index = of_store(self, "_vector_index", lambda: DatabaseVectors(path)).at(conn, len(query))
        if index is None:
            return None
        if not filters:
            return ann_candidates(index, query, limit)
        if allowed is not None:
            return ann_candidates(index, query, limit,
                                  index.mask((filters, allowed.generation), lambda: allowed.sorted))
        return ann_candidates(index, query, limit, index.mask(filters, lambda: _filtered_chunks(conn, filters)))

    def _allowed_chunks(self, conn: Connection, filters: Filters) -> Allowed:
        """The chunks a document filter allows (allowed.py: remembered until a document changes)."""
        return of_store(self, "_allowed", AllowedChunks).of(conn, filters, filter_sql(filters))

    def document_chunks(self, path: str) -> list[tuple[int | None, str]]:
        """(page, text) of one document's chunks, in document order (empty when it is not indexed)."""
        rows = self._read(lambda c: c.execute(
            "SELECT c.page, c.text FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = ? "
            "ORDER BY c.ordinal", (path,)).fetchall())
        return [(r[0], r[1]) for r in rows]

    def chunks_around(self, chunk_id: int, reach: int = 1) -> list[tuple[int | None, int, int, str]]:
        """(page, start, end, text) of a chunk and its neighbours within `reach`, in document order."""
        rows = self._read(lambda c: c.execute(
            "SELECT n.page, n.start, n.end, n.text FROM chunks c JOIN chunks n ON n.document_id = c.document_id "
            "AND n.ordinal BETWEEN c.ordinal - ? AND c.ordinal + ? WHERE c.id = ? ORDER BY n.ordinal",
            (reach, reach, chunk_id)).fetchall())
        return [(r[0], int(r[1]), int(r[2]), r[3]) for r in rows]

    def document_titles(self, document_ids: Sequence[int]) -> dict[int, str]:
        """The stored titles of these documents, by id."""
        def work(conn: Connection) -> dict[int, str]:
            titles: dict[int, str] = {}
            for i in range(0, len(document_ids), SQL_VARIABLES):
                part = list(document_ids[i : i + SQL_VARIABLES])
                titles.update((int(r[0]), r[1] or "") for r in conn.execute(
                    f"SELECT id, title FROM documents WHERE id IN ({','.join('?' * len(part))})", part))
            return titles
        return self._read(work)

    def chunk_rows(self, chunk_ids: Sequence[int]) -> dict[int, ChunkRow]:
        """Chunks with their documents, by id."""
        def work(conn: Connection) -> list[Any]:
            rows = []
            for i in range(0, len(chunk_ids), SQL_VARIABLES):
                part = list(chunk_ids[i : i + SQL_VARIABLES])
                rows += conn.execute(CHUNK_ROWS_SQL + f" WHERE c.id IN ({','.join('?' * len(part))})", part).fetchall()
            return rows
        rows = self._read(work)
        return {int(r["id"]): ChunkRow(chunk_id=int(r["id"]), text=r["text"], page=r["page"], ordinal=int(r["ordinal"]),
                                       start=int(r["start"]), end=int(r["end"]), document_id=int(r["document_id"]),
                                       path=r["path"], title=r["title"], type=r["type"], folder_id=int(r["folder_id"]),
                                       metadata=json.loads(r["metadata"]) if r["metadata"] else None, lang=r["lang"],
                                       label=r["label"], ocr=bool(r["ocr"]), container=r["container"] or "",
                                       part_label=r["part_label"], doc_date=r["doc_date"] or "",
                                       tags=tuple(t for t in (r["tags"] or "").split("|") if t))
                for r in rows}


def _keep_filtered(conn: Connection, hits: list[tuple[int, float]], filters: Filters) -> list[tuple[int, float]]:
    if not hits:
        return hits
    extra, args = filter_sql(filters)
    keep: set[int] = set()
    for i in range(0, len(hits), SQL_VARIABLES):
        ids = [cid for cid, _ in hits[i : i + SQL_VARIABLES]]
        keep.update(
            r[0]
            for r in conn.execute(
                f"SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id "
                f"WHERE c.id IN ({','.join('?' * len(ids))}){extra}",
                [*ids, *args],
            )
        )
    return [h for h in hits if h[0] in keep]


EXACT_SCOPE = 5000  # chunks: up to this many, a scoped search compares every vector (point lookups, numpy)


def _filtered_chunks(conn: Connection, filters: Filters) -> list[int]:
    """Every embedded chunk a filter allows."""
    extra, args = filter_sql(filters)
    return [r[0] for r in conn.execute(
        f"SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.embedded = 1{extra}", args)]


def _exact(conn: Connection, query: np.ndarray, chunk_ids: list[int]) -> list[tuple[int, float]]:
    """Cosine similarity of every window of these chunks to the query; each chunk's best window, best first."""
    best: dict[int, float] = {}
    for cid in chunk_ids:
        for blob in chunk_vectors(conn, cid):
            sim = float(np.dot(np.frombuffer(blob, dtype=np.float32), query))
            if sim > best.get(cid, -2.0):
                best[cid] = sim
    return sorted(best.items(), key=lambda kv: -kv[1])
