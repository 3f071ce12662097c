"""The vector side of the SQLite engine: sqlite-vec's vec0 table, up to MAX_WINDOWS vectors per chunk.

A chunk longer than the embedding model's window gets one vector per window; the vec0 rowid is
chunk id * MAX_WINDOWS + window, so a chunk's vectors are point lookups (vec0 scans for ranges or IN).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence

import numpy as np

from desktop_app.core.embed.base import MAX_WINDOWS
from desktop_app.core.store.rows import ChunkVectors, PendingChunk
from desktop_app.core.store.sqlite.base import SQLiteBase
from desktop_app.core.store.sqlite.connect import Connection, run_script
from desktop_app.core.store.sqlite.side import bump_generation

# Pending chunks leave out the documents the semantic phase skips (a JSON array of ids; "[]" skips none).
_SKIP = " AND document_id NOT IN (SELECT value FROM json_each(?))"


def _ids_json(ids: Collection[int]) -> str:
    return json.dumps(sorted(int(i) for i in ids))


def vector_rowid(chunk_id: int, window: int) -> int:
    """The chunks_vec rowid of one window of a chunk."""
    return chunk_id * MAX_WINDOWS + window


def chunk_vectors(conn: Connection, chunk_id: int) -> list[bytes]:
    """The stored window vectors of one chunk, in window order."""
    out = []
    for w in range(MAX_WINDOWS):
        row = conn.execute("SELECT embedding FROM chunks_vec WHERE rowid = ?", (vector_rowid(chunk_id, w),)).fetchone()
        if row is None:
            break
        out.append(row[0])
    return out


def insert_windows(conn: Connection, chunk_id: int, blobs: Sequence[bytes]) -> None:
    """Insert a chunk's window vectors (raw float32 blobs); the side index built before is stale from now on."""
    if blobs:
        bump_generation(conn)
    for w, blob in enumerate(blobs[:MAX_WINDOWS]):
        conn.execute("INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)", (vector_rowid(chunk_id, w), blob))


def recreate_vector_table(conn: Connection, dim: int) -> None:
    """A new, empty chunks_vec for `dim`-sized vectors (the embedding model changed); every chunk is pending."""
    deletes = "\n".join(
        f"DELETE FROM chunks_vec WHERE rowid = old.id * {MAX_WINDOWS} + {w};" for w in range(MAX_WINDOWS)
    )
    run_script(
        conn,
        f"""
    DROP TRIGGER IF EXISTS chunks_vec_delete;
    DROP TABLE IF EXISTS chunks_vec;
    CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[{int(dim)}]);
    CREATE TRIGGER chunks_vec_delete AFTER DELETE ON chunks WHEN old.embedded = 1 BEGIN
    {deletes}
    END;
    UPDATE chunks SET embedded = 0;
    """,
    )
    bump_generation(conn)


class VectorSQL(SQLiteBase):
    """Pending chunks, vectors, and the record of which model made them."""

    def ensure_embedding_model(self, model_id: str, dim: int) -> bool:
        """A different model (or size) drops every vector for re-embedding. True when the vectors were reset.

        The usual case (nothing changed) only reads: another process may hold the write lock for a long time."""
        meta = self._read(_model_meta)
        if meta.get("embed_model") == model_id and meta.get("embed_dim") == str(dim):
            return False

        def work(conn: Connection) -> bool:
            meta = _model_meta(conn)
            if meta.get("embed_model") == model_id and meta.get("embed_dim") == str(dim):
                return False
            if meta.get("embed_model") is not None or _table_dim(conn) != dim:
                recreate_vector_table(conn, dim)
            for key, value in (("embed_model", model_id), ("embed_dim", str(dim))):
                conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) "
                             "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))
            return True
        return self._write(work)

    def count_pending(self, *, skip_documents: Collection[int] = ()) -> int:
        """Chunks without vectors (not counting those of `skip_documents`)."""
        return int(self._read(lambda c: c.execute(
            "SELECT COUNT(*) FROM chunks WHERE embedded = 0" + _SKIP, (_ids_json(skip_documents),)).fetchone()[0]))

    def pending_chunks(self, limit: int, after_id: int = 0, document_id: int | None = None, *,
                       skip_documents: Collection[int] = ()) -> list[PendingChunk]:
        """Chunks without vectors, in id order (none of `skip_documents`: what the semantic phase leaves out)."""
        args: tuple[object, ...]
        if document_id is None:
            sql, args = ("SELECT id, text_hash, text FROM chunks WHERE embedded = 0 AND id > ?" + _SKIP +
                         " ORDER BY id LIMIT ?", (after_id, _ids_json(skip_documents), limit))
        else:
            sql, args = ("SELECT id, text_hash, text FROM chunks WHERE embedded = 0 AND id > ? "
                         "AND document_id = ?" + _SKIP + " ORDER BY id LIMIT ?",
                         (after_id, document_id, _ids_json(skip_documents), limit))
        rows = self._read(lambda c: c.execute(sql, args).fetchall())
        return [PendingChunk(int(r[0]), r[1], r[2]) for r in rows]

    def store_vectors(self, items: Iterable[ChunkVectors]) -> int:
        """Write window vectors for chunks that still exist with the same text."""
        def work(conn: Connection) -> int:
            stored = 0
            for item in items:
                row = conn.execute("SELECT text_hash, embedded FROM chunks WHERE id = ?", (item.chunk_id,)).fetchone()
                if row is None or row[0] != item.text_hash:
                    continue  # the chunk was replaced while it was being embedded
                if row[1]:
                    for w in range(MAX_WINDOWS):
                        conn.execute("DELETE FROM chunks_vec WHERE rowid = ?", (vector_rowid(item.chunk_id, w),))
                matrix = np.asarray(item.vectors, dtype=np.float32)
                matrix = matrix.reshape(-1, matrix.shape[-1])
                insert_windows(conn, item.chunk_id, [v.tobytes() for v in matrix])
                conn.execute("UPDATE chunks SET embedded = 1 WHERE id = ?", (item.chunk_id,))
                stored += 1
            return stored
        return self._write(work, derived=True)

    def has_vectors(self) -> bool:
        """Whether any chunk has vectors."""
        return self._read(lambda c: c.execute("SELECT 1 FROM chunks WHERE embedded = 1 LIMIT 1").fetchone() is not None)


def _model_meta(conn: Connection) -> dict[str, str]:
    """The recorded embedding model and vector size (meta's embed_model, embed_dim)."""
    return dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('embed_model', 'embed_dim')").fetchall())


def _table_dim(conn: Connection) -> int | None:
    """The vector size chunks_vec was created with (from its DDL)."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'chunks_vec'").fetchone()
    if not row or "float[" not in (row[0] or ""):
        return None
    return int(row[0].split("float[", 1)[1].split("]", 1)[0])
