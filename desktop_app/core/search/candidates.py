"""Candidate lists from the two indexes: FTS5 BM25 and sqlite-vec KNN. Each returns (chunk id, score) best first."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from desktop_app.core.db.migrations import VECTORS_PER_CHUNK

VEC0_MAX_K = 4096


@dataclass(frozen=True)
class Filters:
    """Restrict results to some folders (ids) and/or document types."""

    folder_ids: tuple[int, ...] = ()
    types: tuple[str, ...] = ()

    def sql(self) -> tuple[str, list]:
        clauses, args = [], []
        if self.folder_ids:
            clauses.append(f"d.folder_id IN ({','.join('?' * len(self.folder_ids))})")
            args.extend(self.folder_ids)
        if self.types:
            clauses.append(f"d.type IN ({','.join('?' * len(self.types))})")
            args.extend(self.types)
        return (" AND " + " AND ".join(clauses) if clauses else ""), args

    def __bool__(self) -> bool:
        return bool(self.folder_ids or self.types)


def keyword_candidates(conn, match: str, limit: int, *, title_weight: float = 2.0, filters: Filters | None = None) -> list[tuple[int, float]]:
    """Chunks matching an FTS5 expression, by BM25 over title + text (score = -bm25, higher is better)."""
    extra, args = (filters or Filters()).sql()
    rank = f"bm25(chunks_fts, {float(title_weight)}, 1.0)"
    if extra:
        sql = (f"SELECT chunks_fts.rowid, {rank} AS r FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
               f"JOIN documents d ON d.id = c.document_id WHERE chunks_fts MATCH ?{extra} ORDER BY r LIMIT ?")
    else:
        sql = f"SELECT rowid, {rank} AS r FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY r LIMIT ?"
    rows = conn.execute(sql, [match, *args, int(limit)]).fetchall()
    return [(int(cid), -float(r)) for cid, r in rows]


def dense_candidates(conn, query_vec: np.ndarray, limit: int, *, filters: Filters | None = None) -> list[tuple[int, float]]:
    """Nearest chunks by vec0 KNN (`MATCH ? AND k = ?`); score = cosine similarity of normalised vectors."""
    blob = np.asarray(query_vec, dtype=np.float32).tobytes()
    # windows of one chunk take several of the k places; vec0 refuses k over VEC0_MAX_K ("k value in knn query
    # too large"), which `trove search -k 683` reached: clamp, and a big k simply gets fewer candidates per window
    k = min(int(limit) * (8 if filters else 2), VEC0_MAX_K)
    rows = conn.execute(
        "SELECT rowid, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ? ORDER BY distance", (blob, k)
    ).fetchall()
    best: dict[int, float] = {}
    for rowid, dist in rows:  # nearest first: a chunk's first window here is its best (max-sim)
        best.setdefault(int(rowid) // VECTORS_PER_CHUNK, 1.0 - float(dist) ** 2 / 2.0)
    hits = list(best.items())
    if filters:
        hits = _filter(conn, hits, filters)
    return hits[: int(limit)]


def _filter(conn, hits: list[tuple[int, float]], filters: Filters) -> list[tuple[int, float]]:
    if not hits:
        return hits
    extra, args = filters.sql()
    ids = [cid for cid, _ in hits]
    rows = conn.execute(
        f"SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id IN ({','.join('?' * len(ids))}){extra}",
        [*ids, *args],
    ).fetchall()
    keep = {r[0] for r in rows}
    return [h for h in hits if h[0] in keep]
