"""Documents, chunks and their FTS rows: the SQL of the keyword phase (one transaction per call)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from desktop_app.core.ingest.extract import index_title, title_from_path
from desktop_app.core.store.rows import DocRow, DocStatus, DocumentMove, NewChunk, NewDocument, NewPart, OcrPageRef
from desktop_app.core.store.sqlite import pending_documents
from desktop_app.core.store.sqlite.base import SQLiteBase
from desktop_app.core.store.sqlite.chunks import insert_chunks
from desktop_app.core.store.sqlite.connect import Connection
from desktop_app.core.store.sqlite.keyword import pending as pending_keywords
from desktop_app.core.store.sqlite.ocr import list_ocr_pages
from desktop_app.core.store.sqlite.side import bump_keyword_generation
from desktop_app.core.store.sqlite.vectors import chunk_vectors

_DOC = "SELECT id, folder_id, path, size, mtime_ns, content_hash, status FROM documents"
_FILES = " container IS NULL"  # rows of files on disk (not documents found inside them)
# The columns every write of a document sets (path first, for inserts), and the same as `col=?` pairs for updates.
_DOC_COLUMNS = "path, folder_id, title, type, size, mtime_ns, content_hash"
_SET_DOC = "folder_id=?, title=?, type=?, size=?, mtime_ns=?, content_hash=?"


def _doc_values(doc: NewDocument) -> tuple:
    return (doc.folder_id, doc.title, doc.type, doc.size, doc.mtime_ns, doc.digest)


def _doc(row: Any) -> DocRow:
    return DocRow(int(row[0]), int(row[1]), row[2], int(row[3]), int(row[4]), row[5], DocStatus(row[6]))


def _by_path(conn: Connection, path: str) -> DocRow | None:
    row = conn.execute(_DOC + " WHERE path = ?", (path,)).fetchone()
    return _doc(row) if row else None


class DocumentSQL(SQLiteBase):
    """Documents and chunks. A file's parts (documents inside it) are written, moved and deleted with it."""

    def documents_under(self, folder_id: int, prefix: str = "") -> dict[str, DocRow]:
        """A folder's file rows by path (only those below `prefix` when given); parts are left out."""
        def work(conn: Connection) -> list[Any]:
            if prefix:
                return conn.execute(_DOC + " WHERE folder_id = ? AND substr(path, 1, length(?)) = ? AND" + _FILES,
                                    (folder_id, prefix, prefix)).fetchall()
            return conn.execute(_DOC + " WHERE folder_id = ? AND" + _FILES, (folder_id,)).fetchall()
        rows = self._read(work)
        return {r[2]: _doc(r) for r in rows}

    def document_by_path(self, path: str) -> DocRow | None:
        """The document row for one path ("<file>#<part>" for a part)."""
        return self._read(lambda c: _by_path(c, path))

    def documents_below(self, prefix: str) -> list[DocRow]:
        """File rows whose path starts with `prefix`, in any folder."""
        rows = self._read(lambda c: c.execute(_DOC + " WHERE substr(path, 1, length(?)) = ? AND" + _FILES,
                                              (prefix, prefix)).fetchall())
        return [_doc(r) for r in rows]

    def write_document(self, doc: NewDocument, chunks: Iterable[NewChunk], ocr_pages: Sequence[OcrPageRef] = (),
                       parts: Sequence[NewPart] = ()) -> int:
        """Replace whatever was stored for doc.path, its parts included; vectors of unchanged chunk texts are kept.
        `ocr_pages` are pages with no text layer, listed for the OCR phase (what OCR read of this file is kept).
        In a write batch a new file with nothing else to it is queued, its rows inserted with others (one statement
        per table: pending_documents.py)."""
        if isinstance(chunks, list) and not ocr_pages and not parts:
            with self._lock:  # a queue exists only while this thread's batch is open
                queued = pending_documents.queue(self._conn, doc, chunks)
            if queued is not None:
                return queued
        return self._write(lambda c: _write_file(c, doc, chunks, ocr_pages, parts), derived=True)

    def record_failure(self, doc: NewDocument, reason: str) -> None:
        """Mark a file failed with a reason (its parts go); it is retried only when it changes."""
        values = _doc_values(doc) + (reason, time.time())

        def work(conn: Connection) -> None:
            _drop_parts(conn, doc.path)
            old = _by_path(conn, doc.path)
            if old:
                conn.execute("DELETE FROM chunks WHERE document_id = ?", (old.id,))
                conn.execute("DELETE FROM ocr_pages WHERE document_id = ?", (old.id,))
                conn.execute(f"UPDATE documents SET {_SET_DOC}, error=?, indexed_at=?, pages=NULL, chunk_count=0, "
                             "status='failed' WHERE id=?", (*values, old.id))
            else:
                conn.execute(f"INSERT INTO documents ({_DOC_COLUMNS}, error, indexed_at, status) "
                             "VALUES (?,?,?,?,?,?,?, ?,?, 'failed')", (doc.path, *values))
        self._write(work, derived=True)

    def touch_document(self, doc_id: int, size: int, mtime_ns: int) -> None:
        """New stat data for a file whose content did not change."""
        self._write(lambda c: c.execute("UPDATE documents SET size = ?, mtime_ns = ? WHERE id = ?",
                                        (size, mtime_ns, doc_id)))

    def set_document_facts(self, doc_id: int, date: str | None, tags: Sequence[str]) -> None:
        """A document's own date (an ISO day; None: its modified time counts) and its tags (case-folded)."""
        packed = "|" + "|".join(tags) + "|" if tags else None  # '|a|b|': a tag matches as instr(tags, '|a|')
        self._write(lambda c: c.execute("UPDATE documents SET doc_date = ?, tags = ? WHERE id = ?",
                                        (date, packed, doc_id)))

    def move_documents(self, moves: Sequence[DocumentMove]) -> int:
        """Move files keeping chunks and vectors, their parts with them (a document already at a target is
        replaced). One transaction."""
        def work(conn: Connection) -> int:
            moved = 0
            for m in moves:
                existing = _by_path(conn, m.path)
                if existing is not None and existing.id != m.doc_id:
                    _drop_parts(conn, m.path)
                    _delete(conn, existing.id)
                moved += _move(conn, m.doc_id, m.folder_id, m.path, m.size, m.mtime_ns)
            return moved
        return self._write(work, derived=True)

    def delete_document(self, doc_id: int) -> bool:
        """Forget one document, its parts and everything derived from them."""
        def work(conn: Connection) -> bool:
            row = conn.execute("SELECT path FROM documents WHERE id = ?", (doc_id,)).fetchone()
            if row is not None:
                _drop_parts(conn, row[0])
            return _delete(conn, doc_id)
        return self._write(work)

    def delete_under(self, path: str) -> int:
        """Forget the file at `path` and every document below it (parts included)."""
        prefix = path.rstrip(os.sep) + os.sep

        def work(conn: Connection) -> int:
            # length(?), not len(prefix): a stored path is longer than the str when it holds escaped bytes
            rows = conn.execute("SELECT id FROM documents WHERE path = ? OR container = ? "
                                "OR substr(path, 1, length(?)) = ?", (path, path, prefix, prefix)).fetchall()
            for (doc_id,) in rows:
                _delete(conn, doc_id)
            return len(rows)
        return self._write(work)

    def forget_content_hashes(self) -> None:
        """Every file looks changed to the next sync: re-extracted and re-chunked (unchanged texts keep vectors)."""
        self._write(lambda c: c.execute("UPDATE documents SET mtime_ns = -1, content_hash = ''"))


def _write_file(conn: Connection, doc: NewDocument, chunks: Iterable[NewChunk], ocr_pages: Sequence[OcrPageRef],
                parts: Sequence[NewPart]) -> int:
    """Write a file's row, chunks, OCR work list and parts; the old chunks (of the file and of its parts) lend
    their vectors to new chunks with the same text."""
    old = _by_path(conn, doc.path)
    reuse = _drop_parts(conn, doc.path) if old else {}  # parts are written and deleted with their file
    known = len(chunks) if isinstance(chunks, Sequence) else 0
    doc_id = _upsert(conn, doc, reuse, old=old, chunk_count=known)
    _write_chunks(conn, doc_id, doc, chunks, reuse, known)
    if old or ocr_pages:  # a new row has no OCR work list yet (a deleted one's went with it)
        list_ocr_pages(conn, doc_id, doc.digest, ocr_pages)
    for part in parts:
        _write_part(conn, doc, part, reuse)
    return doc_id


def _upsert(conn: Connection, doc: NewDocument, reuse: dict[str, list[bytes]], *, container: str | None = None,
            part: str = "", part_label: str = "", old: DocRow | None, chunk_count: int = 0) -> int:
    """Insert or replace (`old`: the row now at doc.path) one document row, with `chunk_count` (corrected once its
    chunks are written when they stream); the old chunks go, their vectors into `reuse`."""
    meta = json.dumps(doc.metadata) if doc.metadata is not None else None
    values = _doc_values(doc) + (doc.pages, chunk_count, time.time(), meta, container, part, part_label)
    if old:
        reuse.update(_old_vectors(conn, old.id))
        conn.execute("DELETE FROM chunks WHERE document_id = ?", (old.id,))
        conn.execute(f"UPDATE documents SET {_SET_DOC}, pages=?, chunk_count=?, indexed_at=?, metadata=?, "
                     "container=?, part=?, part_label=?, status='indexed', error=NULL, doc_date=NULL, tags=NULL "
                     "WHERE id=?", (*values, old.id))  # the new content's date and tags: set_document_facts
        return old.id
    return int(conn.execute(
        f"INSERT INTO documents ({_DOC_COLUMNS}, pages, chunk_count, indexed_at, metadata, container, part, "
        "part_label, status) VALUES (?,?,?,?,?,?,?, ?,?,?,?,?,?,?, 'indexed')", (doc.path, *values)).lastrowid)


def _write_chunks(conn: Connection, doc_id: int, doc: NewDocument, chunks: Iterable[NewChunk],
                  reuse: dict[str, list[bytes]], row_count: int = 0) -> None:
    """A document's chunks (which may stream from a big file: counted as written), and their count when it is not
    the `row_count` its row was written with."""
    count = insert_chunks(conn, doc_id, index_title(doc.title, Path(doc.path)), chunks, reuse)
    if count != row_count:
        conn.execute("UPDATE documents SET chunk_count = ? WHERE id = ?", (count, doc_id))


def _write_part(conn: Connection, file: NewDocument, part: NewPart, reuse: dict[str, list[bytes]]) -> None:
    """One document inside `file`, keyed "<file>#<part>" (a failed one keeps its reason)."""
    doc = replace(part.doc, path=f"{file.path}#{part.part}", folder_id=file.folder_id, size=file.size,
                  mtime_ns=file.mtime_ns, digest=file.digest)
    if part.reason:
        conn.execute(f"INSERT INTO documents ({_DOC_COLUMNS}, error, indexed_at, container, part, part_label, status) "
                     "VALUES (?,?,?,?,?,?,?, ?,?,?,?,?, 'failed')",
                     (doc.path, *_doc_values(doc), part.reason, time.time(), file.path, part.part, part.label))
        return
    doc_id = _upsert(conn, doc, reuse, container=file.path, part=part.part, part_label=part.label,
                     old=_by_path(conn, doc.path))
    _write_chunks(conn, doc_id, doc, part.chunks, reuse)


def _drop_parts(conn: Connection, path: str) -> dict[str, list[bytes]]:
    """Delete the documents inside the file at `path`; returns their vectors by chunk text hash (for reuse)."""
    reuse: dict[str, list[bytes]] = {}
    for (doc_id,) in conn.execute("SELECT id FROM documents WHERE container = ?", (path,)).fetchall():
        reuse.update(_old_vectors(conn, doc_id))
        _delete(conn, doc_id)
    return reuse


def _delete(conn: Connection, doc_id: int) -> bool:
    conn.execute("DELETE FROM chunks WHERE document_id = ?", (doc_id,))
    return conn.execute("DELETE FROM documents WHERE id = ?", (doc_id,)).rowcount > 0


def _move(conn: Connection, doc_id: int, folder_id: int, new_path: str, size: int, mtime_ns: int) -> int:
    """Update the path and the FTS title (parts follow their file). A title that came from the old file name
    follows the new name."""
    row = conn.execute("SELECT path, title FROM documents WHERE id = ?", (doc_id,)).fetchone()
    if row is None:
        return 0
    old_path, title = row
    if title == title_from_path(Path(old_path)):
        title = title_from_path(Path(new_path))
    conn.execute("UPDATE documents SET folder_id=?, path=?, title=?, size=?, mtime_ns=? WHERE id=?",
                 (folder_id, new_path, title, size, mtime_ns, doc_id))
    _rewrite_fts(conn, doc_id, index_title(title, Path(new_path)))
    for part_id, part, part_title in conn.execute("SELECT id, part, title FROM documents WHERE container = ?",
                                                  (old_path,)).fetchall():
        conn.execute("UPDATE documents SET folder_id=?, path=?, container=? WHERE id=?",
                     (folder_id, f"{new_path}#{part}", new_path, part_id))
        _rewrite_fts(conn, part_id, index_title(part_title, Path(new_path)))
    return 1


def _rewrite_fts(conn: Connection, doc_id: int, fts_title: str) -> None:
    for cid, text in conn.execute("SELECT id, text FROM chunks WHERE document_id = ?", (doc_id,)).fetchall():
        pending_keywords.write_row(conn, cid, fts_title, text)
    bump_keyword_generation(conn)


def _old_vectors(conn: Connection, doc_id: int) -> dict[str, list[bytes]]:
    """Vectors of a document's current chunks, by chunk text hash (to reuse after an edit)."""
    rows = conn.execute("SELECT id, text_hash FROM chunks WHERE document_id = ? AND embedded = 1", (doc_id,)).fetchall()
    return {h: vecs for cid, h in rows if (vecs := chunk_vectors(conn, cid))}
