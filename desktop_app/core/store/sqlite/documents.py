"""Documents, chunks and their FTS rows: the SQL of the keyword phase (one transaction per call)."""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from desktop_app.core.ingest.extract import index_title, title_from_path
from desktop_app.core.store.rows import DocRow, DocStatus, NewChunk, NewDocument
from desktop_app.core.store.sqlite.base import SQLiteBase
from desktop_app.core.store.sqlite.connect import Connection
from desktop_app.core.store.sqlite.vectors import chunk_vectors, insert_windows

_DOC = "SELECT id, folder_id, path, size, mtime_ns, content_hash, status FROM documents"
# The columns every write of a document sets (path first, for inserts), and the same as `col=?` pairs for updates.
_DOC_COLUMNS = "path, folder_id, title, type, size, mtime_ns, content_hash"
_SET_DOC = "folder_id=?, title=?, type=?, size=?, mtime_ns=?, content_hash=?"


def text_hash(text: str) -> str:
    """Content hash of a chunk's text (reuses vectors across edits and moves)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _doc_values(doc: NewDocument) -> tuple:
    return (doc.folder_id, doc.title, doc.type, doc.size, doc.mtime_ns, doc.digest)


def _doc(row) -> DocRow:
    return DocRow(int(row[0]), int(row[1]), row[2], int(row[3]), int(row[4]), row[5], DocStatus(row[6]))


def _by_path(conn: Connection, path: str) -> DocRow | None:
    row = conn.execute(_DOC + " WHERE path = ?", (path,)).fetchone()
    return _doc(row) if row else None


class DocumentSQL(SQLiteBase):
    """Documents and chunks."""

    def documents_under(self, folder_id: int, prefix: str = "") -> dict[str, DocRow]:
        """A folder's document rows by path (only those below `prefix` when given)."""
        with self._read() as conn:
            if prefix:
                rows = conn.execute(
                    _DOC + " WHERE folder_id = ? AND substr(path, 1, ?) = ?", (folder_id, len(prefix), prefix)
                )
            else:
                rows = conn.execute(_DOC + " WHERE folder_id = ?", (folder_id,))
            return {r[2]: _doc(r) for r in rows}

    def document_by_path(self, path: str) -> DocRow | None:
        """The document row for one path."""
        with self._read() as conn:
            return _by_path(conn, path)

    def documents_below(self, prefix: str) -> list[DocRow]:
        """Documents whose path starts with `prefix`, in any folder."""
        with self._read() as conn:
            return [_doc(r) for r in conn.execute(_DOC + " WHERE substr(path, 1, ?) = ?", (len(prefix), prefix))]

    def write_document(self, doc: NewDocument, chunks: Sequence[NewChunk]) -> int:
        """Replace whatever was stored for doc.path; vectors of unchanged chunk texts are kept."""
        meta = json.dumps(doc.metadata) if doc.metadata is not None else None
        values = _doc_values(doc) + (doc.pages, len(chunks), time.time(), meta)
        with self._tx() as conn:
            old = _by_path(conn, doc.path)
            reuse: dict[str, list[bytes]] = {}
            if old:
                reuse = _old_vectors(conn, old.id)
                conn.execute("DELETE FROM chunks WHERE document_id = ?", (old.id,))
                conn.execute(f"UPDATE documents SET {_SET_DOC}, pages=?, chunk_count=?, indexed_at=?, metadata=?, "
                             "status='indexed', error=NULL WHERE id=?", (*values, old.id))
                doc_id = old.id
            else:
                doc_id = int(conn.execute(
                    f"INSERT INTO documents ({_DOC_COLUMNS}, pages, chunk_count, indexed_at, metadata, status) "
                    "VALUES (?,?,?,?,?,?,?, ?,?,?,?, 'indexed')", (doc.path, *values)).lastrowid)
            _insert_chunks(conn, doc_id, index_title(doc.title, Path(doc.path)), chunks, reuse)
        return doc_id

    def record_failure(self, doc: NewDocument, reason: str) -> None:
        """Mark a file failed with a reason; it is retried only when it changes."""
        values = _doc_values(doc) + (reason, time.time())
        with self._tx() as conn:
            old = _by_path(conn, doc.path)
            if old:
                conn.execute("DELETE FROM chunks WHERE document_id = ?", (old.id,))
                conn.execute(f"UPDATE documents SET {_SET_DOC}, error=?, indexed_at=?, pages=NULL, chunk_count=0, "
                             "status='failed' WHERE id=?", (*values, old.id))
            else:
                conn.execute(f"INSERT INTO documents ({_DOC_COLUMNS}, error, indexed_at, status) "
                             "VALUES (?,?,?,?,?,?,?, ?,?, 'failed')", (doc.path, *values))

    def touch_document(self, doc_id: int, size: int, mtime_ns: int) -> None:
        """New stat data for a file whose content did not change."""
        with self._tx() as conn:
            conn.execute("UPDATE documents SET size = ?, mtime_ns = ? WHERE id = ?", (size, mtime_ns, doc_id))

    def move_documents(self, moves: Sequence[tuple[int, int, str, int, int]]) -> int:
        """Move documents keeping chunks and vectors (a document already at a target is replaced). One transaction."""
        moved = 0
        with self._tx() as conn:
            for doc_id, folder_id, new_path, size, mtime_ns in moves:
                existing = _by_path(conn, new_path)
                if existing is not None and existing.id != doc_id:
                    _delete(conn, existing.id)
                if _move(conn, doc_id, folder_id, new_path, size, mtime_ns):
                    moved += 1
        return moved

    def delete_document(self, doc_id: int) -> bool:
        """Forget one document and everything derived from it."""
        with self._tx() as conn:
            return _delete(conn, doc_id)

    def delete_under(self, path: str) -> int:
        """Forget the document at `path` and every document below it."""
        prefix = path.rstrip(os.sep) + os.sep
        with self._tx() as conn:
            rows = conn.execute(
                "SELECT id FROM documents WHERE path = ? OR substr(path, 1, ?) = ?", (path, len(prefix), prefix)
            ).fetchall()
            for (doc_id,) in rows:
                _delete(conn, doc_id)
        return len(rows)

    def forget_content_hashes(self) -> None:
        """Every file looks changed to the next sync: re-extracted and re-chunked (unchanged texts keep vectors)."""
        with self._tx() as conn:
            conn.execute("UPDATE documents SET mtime_ns = -1, content_hash = ''")


def _delete(conn: Connection, doc_id: int) -> bool:
    conn.execute("DELETE FROM chunks WHERE document_id = ?", (doc_id,))
    return conn.execute("DELETE FROM documents WHERE id = ?", (doc_id,)).rowcount > 0


def _move(conn: Connection, doc_id: int, folder_id: int, new_path: str, size: int, mtime_ns: int) -> bool:
    """Update the path and the FTS title. A title that came from the old file name follows the new name."""
    row = conn.execute("SELECT path, title FROM documents WHERE id = ?", (doc_id,)).fetchone()
    if row is None:
        return False
    old_path, title = row
    if title == title_from_path(Path(old_path)):
        title = title_from_path(Path(new_path))
    conn.execute(
        "UPDATE documents SET folder_id=?, path=?, title=?, size=?, mtime_ns=? WHERE id=?",
        (folder_id, new_path, title, size, mtime_ns, doc_id),
    )
    fts_title = index_title(title, Path(new_path))
    for cid, text in conn.execute("SELECT id, text FROM chunks WHERE document_id = ?", (doc_id,)).fetchall():
        conn.execute("DELETE FROM chunks_fts WHERE rowid = ?", (cid,))
        conn.execute("INSERT INTO chunks_fts (rowid, title, text) VALUES (?, ?, ?)", (cid, fts_title, text))
    return True


def _old_vectors(conn: Connection, doc_id: int) -> dict[str, list[bytes]]:
    """Vectors of a document's current chunks, by chunk text hash (to reuse after an edit)."""
    rows = conn.execute("SELECT id, text_hash FROM chunks WHERE document_id = ? AND embedded = 1", (doc_id,)).fetchall()
    return {h: vecs for cid, h in rows if (vecs := chunk_vectors(conn, cid))}


def _insert_chunks(
    conn: Connection, doc_id: int, fts_title: str, chunks: Sequence[NewChunk], reuse: dict[str, list[bytes]]
) -> None:
    """Insert chunks with their FTS rows; a chunk whose text has known vectors gets them back at once."""
    for ordinal, chunk in enumerate(chunks):
        h = text_hash(chunk.span.text)
        blobs = reuse.get(h) or _given_vectors(chunk)
        cid = int(
            conn.execute(
                "INSERT INTO chunks (document_id, ordinal, page, start, end, text, text_hash, embedded) "
                "VALUES (?,?,?,?,?,?,?,?)",
                (doc_id, ordinal, chunk.page, chunk.span.start, chunk.span.end, chunk.span.text, h, 1 if blobs else 0),
            ).lastrowid
        )
        conn.execute("INSERT INTO chunks_fts (rowid, title, text) VALUES (?, ?, ?)", (cid, fts_title, chunk.span.text))
        insert_windows(conn, cid, blobs or [])


def _given_vectors(chunk: NewChunk) -> list[bytes]:
    """Vectors a chunk brings along (copied from another library), as float32 blobs."""
    if chunk.vectors is None:
        return []
    matrix = np.asarray(chunk.vectors, dtype=np.float32)
    return [v.tobytes() for v in matrix.reshape(-1, matrix.shape[-1])]
