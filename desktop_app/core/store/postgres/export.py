"""Reading whole documents back (chunks and vectors), to copy a server library elsewhere."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
import psycopg

from desktop_app.core.ingest.chunking import Span
from desktop_app.core.store.postgres.base import PostgresBase
from desktop_app.core.store.postgres.documents import metadata_json
from desktop_app.core.store.rows import DocStatus, NewChunk, NewDocument, StoredDocument


class ExportSQL(PostgresBase):
    """Documents with everything derived from them, in id order."""

    def stored_documents(self, after_id: int, limit: int) -> list[StoredDocument]:
        """Documents after `after_id` (id order) with chunks and window vectors."""
        def work(conn: psycopg.Connection) -> list[StoredDocument]:
            docs = conn.execute(
                "SELECT id, folder_id, path, title, type, size, mtime_ns, content_hash, pages, metadata, status, "
                "error FROM documents WHERE id > %s ORDER BY id LIMIT %s", (after_id, limit)).fetchall()
            ids = [int(r[0]) for r in docs]
            chunks = conn.execute('SELECT id, document_id, page, start, "end", text FROM chunks '
                                  "WHERE document_id = ANY(%s) ORDER BY document_id, ordinal", (ids,)).fetchall()
            vectors: dict[int, list[Any]] = defaultdict(list)
            for cid, _w, vec in conn.execute(
                    'SELECT chunk_id, "window", embedding FROM chunk_vectors WHERE chunk_id = ANY(%s) '
                    'ORDER BY chunk_id, "window"', ([int(c[0]) for c in chunks],)):
                vectors[int(cid)].append(_array(vec))
            by_doc: dict[int, list[NewChunk]] = defaultdict(list)
            for cid, doc_id, page, start, end, text in chunks:
                vecs = vectors.get(int(cid))
                by_doc[int(doc_id)].append(NewChunk(Span(int(start), int(end), text), page,
                                                    np.stack(vecs) if vecs else None))
            return [_stored(r, tuple(by_doc.get(int(r[0]), ()))) for r in docs]
        return self._read(work)


def _stored(r: Any, chunks: tuple[NewChunk, ...]) -> StoredDocument:
    doc = NewDocument(folder_id=int(r[1]), path=r[2], title=r[3], type=r[4], size=int(r[5]), mtime_ns=int(r[6]),
                      digest=r[7], pages=r[8], metadata=metadata_json(r[9]))
    return StoredDocument(int(r[0]), doc, DocStatus(r[10]), r[11], chunks)


def _array(vec: Any) -> np.ndarray:
    """A pgvector value as float32 (the binary loader gives a Vector, the text one an array)."""
    return np.asarray(vec.to_numpy() if hasattr(vec, "to_numpy") else vec, dtype=np.float32)
