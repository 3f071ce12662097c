"""Reading whole files back (chunks and vectors, the documents inside them, their OCR pages), to copy a server
library elsewhere."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
import psycopg

from desktop_app.core.ingest.chunking import Span
from desktop_app.core.store.postgres.base import PostgresBase
from desktop_app.core.store.postgres.documents import metadata_json
from desktop_app.core.store.rows import DocStatus, NewChunk, NewDocument, NewPart, OcrPageRef, StoredDocument

_DOCS = ("SELECT id, folder_id, path, title, type, size, mtime_ns, content_hash, pages, metadata, status, error, "
         "part, part_label, container FROM documents")


class ExportSQL(PostgresBase):
    """Files with everything derived from them, in id order."""

    def stored_documents(self, after_id: int, limit: int) -> list[StoredDocument]:
        """Files (not the documents inside them: those come as their parts) after `after_id`, in id order."""
        def work(conn: psycopg.Connection) -> list[StoredDocument]:
            files = conn.execute(_DOCS + " WHERE id > %s AND container IS NULL ORDER BY id LIMIT %s",
                                 (after_id, limit)).fetchall()
            inside = conn.execute(_DOCS + " WHERE container IS NOT NULL AND (folder_id, container) IN "
                                  "(SELECT folder_id, path FROM documents WHERE id = ANY(%s)) ORDER BY id",
                                  ([int(r[0]) for r in files],)).fetchall()
            ids = [int(r[0]) for r in (*files, *inside)]
            chunks = _chunks(conn, ids)
            pages: dict[int, list[OcrPageRef]] = defaultdict(list)
            for doc_id, *page in conn.execute(
                    "SELECT document_id, page, label, status, text, confidence, reason, words FROM ocr_pages "
                    "WHERE document_id = ANY(%s) ORDER BY document_id, page", (ids,)):
                pages[int(doc_id)].append(OcrPageRef(int(page[0]), *page[1:]))
            parts: dict[tuple[int, str], list[NewPart]] = defaultdict(list)
            for p in inside:
                reason = (p[11] or "could not be read") if p[10] == DocStatus.FAILED else ""
                parts[(int(p[1]), p[14])].append(NewPart(p[12], p[13], _document(p), chunks.get(int(p[0]), ()),
                                                         reason))
            return [StoredDocument(int(r[0]), _document(r), DocStatus(r[10]), r[11], chunks.get(int(r[0]), ()),
                                   tuple(parts.get((int(r[1]), r[2]), ())), tuple(pages.get(int(r[0]), ())))
                    for r in files]
        return self._read(work)


def _document(r: Any) -> NewDocument:
    return NewDocument(folder_id=int(r[1]), path=r[2], title=r[3], type=r[4], size=int(r[5]), mtime_ns=int(r[6]),
                       digest=r[7], pages=r[8], metadata=metadata_json(r[9]))


def _chunks(conn: psycopg.Connection, doc_ids: list[int]) -> dict[int, tuple[NewChunk, ...]]:
    """The chunks of these documents with their window vectors, by document, in document order."""
    rows = conn.execute('SELECT id, document_id, page, start, "end", text, label, ocr FROM chunks '
                        "WHERE document_id = ANY(%s) ORDER BY document_id, ordinal", (doc_ids,)).fetchall()
    vectors: dict[int, list[Any]] = defaultdict(list)
    for cid, _w, vec in conn.execute('SELECT chunk_id, "window", embedding FROM chunk_vectors WHERE chunk_id = ANY(%s) '
                                     'ORDER BY chunk_id, "window"', ([int(c[0]) for c in rows],)):
        vectors[int(cid)].append(_array(vec))
    by_doc: dict[int, list[NewChunk]] = defaultdict(list)
    for cid, doc_id, page, start, end, text, label, ocr in rows:
        vecs = vectors.get(int(cid))
        by_doc[int(doc_id)].append(NewChunk(Span(int(start), int(end), text), page, label, bool(ocr),
                                            np.stack(vecs) if vecs else None))
    return {doc_id: tuple(chunks) for doc_id, chunks in by_doc.items()}


def _array(vec: Any) -> np.ndarray:
    """A pgvector value as float32 (the binary loader gives a Vector, the text one an array)."""
    return np.asarray(vec.to_numpy() if hasattr(vec, "to_numpy") else vec, dtype=np.float32)
