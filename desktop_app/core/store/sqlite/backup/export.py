"""Reading whole files back (chunks and vectors, the documents inside them, their OCR pages), for `trove migrate` to
copy a library to another engine."""

from __future__ import annotations

import json

import numpy as np

from desktop_app.core.ingest.chunking import Span
from desktop_app.core.store.rows import DocStatus, NewChunk, NewDocument, NewPart, OcrPageRef, StoredDocument
from desktop_app.core.store.sqlite.base import SQLiteBase
from desktop_app.core.store.sqlite.connect import Connection
from desktop_app.core.store.sqlite.vectors import chunk_vectors

_DOCS = ("SELECT id, folder_id, path, title, type, size, mtime_ns, content_hash, pages, metadata, status, error, part, "
         "part_label FROM documents")


class ExportSQL(SQLiteBase):
    """Files with everything derived from them, in id order."""

    def stored_documents(self, after_id: int, limit: int) -> list[StoredDocument]:
        """Files (not the documents inside them: those come as their parts) after `after_id`, in id order."""
        def work(conn: Connection) -> list[StoredDocument]:
            files = conn.execute(_DOCS + " WHERE id > ? AND container IS NULL ORDER BY id LIMIT ?",
                                 (after_id, limit)).fetchall()
            return [_stored(conn, r) for r in files]
        return self._read(work)


def _document(r) -> NewDocument:
    return NewDocument(folder_id=int(r[1]), path=r[2], title=r[3], type=r[4], size=int(r[5]), mtime_ns=int(r[6]),
                       digest=r[7], pages=r[8], metadata=json.loads(r[9]) if r[9] else None)


def _chunks(conn: Connection, doc_id: int) -> tuple[NewChunk, ...]:
    chunks = []
    for cid, page, start, end, text, embedded, label, ocr in conn.execute(
            "SELECT id, page, start, end, text, embedded, label, ocr FROM chunks WHERE document_id = ? "
            "ORDER BY ordinal", (doc_id,)).fetchall():
        blobs = chunk_vectors(conn, cid) if embedded else []
        vectors = np.stack([np.frombuffer(b, dtype=np.float32) for b in blobs]) if blobs else None
        chunks.append(NewChunk(Span(int(start), int(end), text), page, label, bool(ocr), vectors))
    return tuple(chunks)


def _stored(conn: Connection, r) -> StoredDocument:
    parts = tuple(NewPart(p[12], p[13], _document(p), _chunks(conn, int(p[0])), _reason(p[10], p[11]))
                  for p in conn.execute(_DOCS + " WHERE container = ? ORDER BY id", (r[2],)).fetchall())
    pages = tuple(OcrPageRef(int(o[0]), o[1], o[2], o[3], o[4], o[5], o[6]) for o in conn.execute(
        "SELECT page, label, status, text, confidence, reason, words FROM ocr_pages WHERE document_id = ? "
        "ORDER BY page", (r[0],)))
    return StoredDocument(int(r[0]), _document(r), DocStatus(r[10]), r[11], _chunks(conn, int(r[0])), parts, pages)


def _reason(status: str, error: str | None) -> str:
    """A part's reason as NewPart takes it: set only when it failed."""
    return (error or "could not be read") if status == DocStatus.FAILED else ""
