"""Reading whole documents back (chunks and vectors), for `trove migrate` to copy a library to another engine."""

from __future__ import annotations

import json

import numpy as np

from desktop_app.core.ingest.chunking import Span
from desktop_app.core.store.rows import DocStatus, NewChunk, NewDocument, StoredDocument
from desktop_app.core.store.sqlite.base import SQLiteBase
from desktop_app.core.store.sqlite.connect import Connection
from desktop_app.core.store.sqlite.vectors import chunk_vectors


class ExportSQL(SQLiteBase):
    """Documents with everything derived from them, in id order."""

    def stored_documents(self, after_id: int, limit: int) -> list[StoredDocument]:
        """Documents after `after_id` (id order) with chunks and window vectors."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT id, folder_id, path, title, type, size, mtime_ns, content_hash, pages, metadata, status, error "
                "FROM documents WHERE id > ? ORDER BY id LIMIT ?",
                (after_id, limit),
            ).fetchall()
            return [_stored(conn, r) for r in rows]


def _stored(conn: Connection, r) -> StoredDocument:
    doc = NewDocument(
        folder_id=int(r[1]), path=r[2], title=r[3], type=r[4], size=int(r[5]), mtime_ns=int(r[6]), digest=r[7],
        pages=r[8], metadata=json.loads(r[9]) if r[9] else None,
    )
    chunks = []
    for cid, page, start, end, text, embedded in conn.execute(
        "SELECT id, page, start, end, text, embedded FROM chunks WHERE document_id = ? ORDER BY ordinal", (r[0],)
    ).fetchall():
        blobs = chunk_vectors(conn, cid) if embedded else []
        vectors = np.stack([np.frombuffer(b, dtype=np.float32) for b in blobs]) if blobs else None
        chunks.append(NewChunk(Span(int(start), int(end), text), page, vectors=vectors))
    return StoredDocument(int(r[0]), doc, DocStatus(r[10]), r[11], tuple(chunks))
