"""Documents and chunks on the server: one transaction per call, vectors of unchanged chunk texts kept server-side.

Paths are looked up among the folders this machine watches, so two desktops may each have a /home/me/notes.
A file's parts (documents inside it: a mailbox's messages, attachments) are rows keyed "<file>#<part>" that
name the file as their container; they are written, moved and deleted with it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

import desktop_app.core.store.postgres.connect as pgc
from desktop_app.core.ingest.extract import index_title, title_from_path
from desktop_app.core.store.postgres.base import PostgresBase
from desktop_app.core.store.postgres.chunks import Replay, chunk_ids, insert_chunks
from desktop_app.core.store.postgres.connect import scalar
from desktop_app.core.store.postgres.folders import MY_FOLDER_IDS
from desktop_app.core.store.postgres.keywords import chunk_terms
from desktop_app.core.store.postgres.ocr import list_ocr_pages
from desktop_app.core.store.rows import DocRow, DocStatus, DocumentMove, NewChunk, NewDocument, NewPart, OcrPageRef

_DOC = "SELECT d.id, d.folder_id, d.path, d.size, d.mtime_ns, d.content_hash, d.status FROM documents d"
_MINE = f" d.folder_id IN ({MY_FOLDER_IDS})"
_FILES = " d.container IS NULL"  # rows of files on disk (not documents found inside them)


def _doc(row: Any) -> DocRow:
    return DocRow(int(row[0]), int(row[1]), row[2], int(row[3]), int(row[4]), row[5], DocStatus(row[6]))


def _by_path(conn: psycopg.Connection, machine: str, path: str, *, lock: bool = False) -> DocRow | None:
    sql = _DOC + " WHERE d.path = %(p)s AND" + _MINE + " ORDER BY d.id LIMIT 1" + (" FOR UPDATE" if lock else "")
    row = conn.execute(sql, {"p": path, "m": machine}).fetchone()
    return _doc(row) if row else None


def _parts_of(conn: psycopg.Connection, machine: str, path: str) -> dict[str, int]:
    """The documents inside the file at `path` (this machine's), by their path."""
    rows = conn.execute("SELECT d.path, d.id FROM documents d WHERE d.container = %(p)s AND" + _MINE,
                        {"p": path, "m": machine}).fetchall()
    return {r[0]: int(r[1]) for r in rows}


def _doc_values(doc: NewDocument) -> dict[str, Any]:
    return {"folder": doc.folder_id, "path": doc.path, "title": doc.title, "type": doc.type, "size": doc.size,
            "mtime": doc.mtime_ns, "hash": doc.digest, "now": time.time(), "pages": doc.pages,
            "meta": Jsonb(doc.metadata) if doc.metadata is not None else None}


class DocumentSQL(PostgresBase):
    """Documents and chunks. A file's parts are written, moved and deleted with it."""

    def documents_under(self, folder_id: int, prefix: str = "") -> dict[str, DocRow]:
        """A folder's file rows by path (only those below `prefix` when given); parts are left out."""
        rows = self._read(lambda c: c.execute(
            _DOC + " WHERE d.folder_id = %s AND starts_with(d.path, %s) AND" + _FILES, (folder_id, prefix)).fetchall())
        return {r[2]: _doc(r) for r in rows}

    def document_by_path(self, path: str) -> DocRow | None:
        """The document row for one path ("<file>#<part>" for a part), in this machine's folders."""
        return self._read(lambda c: _by_path(c, self.machine_id, path))

    def documents_below(self, prefix: str) -> list[DocRow]:
        """File rows whose path starts with `prefix`, in any of this machine's folders."""
        rows = self._read(lambda c: c.execute(_DOC + " WHERE starts_with(d.path, %(p)s) AND" + _MINE + " AND" + _FILES,
                                              {"p": prefix, "m": self.machine_id}).fetchall())
        return [_doc(r) for r in rows]

    def write_document(self, doc: NewDocument, chunks: Iterable[NewChunk], ocr_pages: Sequence[OcrPageRef] = (),
                       parts: Sequence[NewPart] = ()) -> int:
        """Replace whatever was stored for doc.path, its parts included; vectors of unchanged chunk texts are kept.
        `chunks` may stream from a big file (counted as written). `ocr_pages` are pages with no text layer, listed
        for the OCR phase (what OCR read of this file is kept)."""
        replay = Replay(chunks, pgc.gone(self.url))
        return self._write(lambda c: _write_file(c, self.machine_id, doc, replay.again(), ocr_pages, parts),
                           derived=True)

    def record_failure(self, doc: NewDocument, reason: str) -> None:
        """Mark a file failed with a reason (its chunks and parts go); it is retried only when it changes."""
        values = {**_doc_values(doc), "error": reason}

        def work(conn: psycopg.Connection) -> None:
            _drop_parts(conn, self.machine_id, doc.path)
            old = _by_path(conn, self.machine_id, doc.path, lock=True)
            _drop_duplicates(conn, self.machine_id, doc.path, old.id if old else None)
            if old is not None:
                conn.execute("DELETE FROM chunks WHERE document_id = %s", (old.id,))
                conn.execute("DELETE FROM ocr_pages WHERE document_id = %s", (old.id,))
                conn.execute("UPDATE documents SET folder_id=%(folder)s, title=%(title)s, type=%(type)s, "
                             "size=%(size)s, mtime_ns=%(mtime)s, content_hash=%(hash)s, error=%(error)s, "
                             "indexed_at=%(now)s, pages=NULL, chunk_count=0, metadata=NULL, status='failed' "
                             "WHERE id=%(id)s", {**values, "id": old.id})
            else:
                conn.execute("INSERT INTO documents (folder_id, path, title, type, size, mtime_ns, content_hash, "
                             "error, indexed_at, status) VALUES (%(folder)s, %(path)s, %(title)s, %(type)s, "
                             "%(size)s, %(mtime)s, %(hash)s, %(error)s, %(now)s, 'failed')", values)
        self._write(work, derived=True)

    def touch_document(self, doc_id: int, size: int, mtime_ns: int) -> None:
        """New stat data for a file whose content did not change."""
        self._write(lambda c: c.execute("UPDATE documents SET size = %s, mtime_ns = %s WHERE id = %s",
                                        (size, mtime_ns, doc_id)))

    def set_document_facts(self, doc_id: int, date: str | None, tags: Sequence[str]) -> None:
        """A document's own date (an ISO day; None: its modified time counts) and its tags (case-folded)."""
        self._write(lambda c: c.execute("UPDATE documents SET doc_date = %s::date, tags = %s WHERE id = %s",
                                        (date, list(tags) or None, doc_id)))

    def move_documents(self, moves: Sequence[DocumentMove]) -> int:
        """Move files keeping chunks and vectors, their parts with them (a document already at a target is
        replaced). One transaction."""
        def work(conn: psycopg.Connection) -> int:
            moved = 0
            for m in moves:
                existing = _by_path(conn, self.machine_id, m.path)
                if existing is not None and existing.id != m.doc_id:
                    _drop_parts(conn, self.machine_id, m.path)
                    _drop_duplicates(conn, self.machine_id, m.path, m.doc_id)
                moved += _move(conn, self.machine_id, m.doc_id, m.folder_id, m.path, m.size, m.mtime_ns)
            return moved
        return self._write(work, derived=True)

    def delete_document(self, doc_id: int) -> bool:
        """Forget one document, its parts and everything derived from them (chunks and vectors cascade)."""
        def work(conn: psycopg.Connection) -> bool:
            row = conn.execute("SELECT path FROM documents WHERE id = %s", (doc_id,)).fetchone()
            if row is not None:
                _drop_parts(conn, self.machine_id, row[0])
            return conn.execute("DELETE FROM documents WHERE id = %s", (doc_id,)).rowcount > 0
        return self._write(work)

    def delete_under(self, path: str) -> int:
        """Forget the file at `path` and every document below it (parts included), in this machine's folders."""
        prefix = path.rstrip(os.sep) + os.sep
        return self._write(lambda c: c.execute(
            "DELETE FROM documents d WHERE (d.path = %(p)s OR d.container = %(p)s OR starts_with(d.path, %(pre)s)) "
            "AND" + _MINE, {"p": path, "pre": prefix, "m": self.machine_id}).rowcount)

    def forget_content_hashes(self) -> None:
        """Every file of this machine's folders looks changed to the next sync (reindex)."""
        self._write(lambda c: c.execute("UPDATE documents d SET mtime_ns = -1, content_hash = '' WHERE" + _MINE,
                                        {"m": self.machine_id}))


def _write_file(conn: psycopg.Connection, machine: str, doc: NewDocument, chunks: Iterator[NewChunk],
                ocr_pages: Sequence[OcrPageRef], parts: Sequence[NewPart]) -> int:
    """Write a file's row, chunks, OCR work list and parts; the old chunks (of the file and of its parts) lend
    their vectors to new chunks with the same text, then go."""
    old = _by_path(conn, machine, doc.path, lock=True)
    old_parts = _parts_of(conn, machine, doc.path)
    old_chunks = chunk_ids(conn, [*([old.id] if old else []), *old_parts.values()])
    if old is not None:
        _drop_duplicates(conn, machine, doc.path, old.id)
    doc_id = _upsert(conn, doc, old.id if old else None)
    _write_chunks(conn, doc_id, doc, chunks, old_chunks)
    if old is not None or ocr_pages:  # a new document has no OCR pages to keep or replace
        list_ocr_pages(conn, doc_id, doc.digest, ocr_pages)
    written = set()
    for part in parts:
        path = f"{doc.path}#{part.part}"
        written.add(path)
        _write_part(conn, doc, part, path, old_parts.get(path), old_chunks)
    gone = [doc_id for path, doc_id in old_parts.items() if path not in written]
    if gone:
        conn.execute("DELETE FROM documents WHERE id = ANY(%s)", (gone,))
    if old_chunks:
        conn.execute("DELETE FROM chunks WHERE id = ANY(%s)", (old_chunks,))
    return doc_id


def _upsert(conn: psycopg.Connection, doc: NewDocument, doc_id: int | None, *, container: str | None = None,
            part: str = "", part_label: str = "", reason: str = "") -> int:
    """Insert or update one document row (its chunk count is set once its chunks are written)."""
    values = {**_doc_values(doc), "container": container, "part": part, "part_label": part_label,
              "status": "failed" if reason else "indexed", "error": reason or None}
    if doc_id is not None:
        conn.execute("UPDATE documents SET folder_id=%(folder)s, path=%(path)s, title=%(title)s, type=%(type)s, "
                     "size=%(size)s, mtime_ns=%(mtime)s, content_hash=%(hash)s, pages=%(pages)s, chunk_count=0, "
                     "indexed_at=%(now)s, metadata=%(meta)s, container=%(container)s, part=%(part)s, "
                     "part_label=%(part_label)s, status=%(status)s, error=%(error)s, doc_date=NULL, tags=NULL "
                     "WHERE id=%(id)s",  # the date and tags of the new content are set after (set_document_facts)
                     {**values, "id": doc_id})
        return doc_id
    return int(scalar(conn.execute(
        "INSERT INTO documents (folder_id, path, title, type, size, mtime_ns, content_hash, pages, chunk_count, "
        "indexed_at, metadata, container, part, part_label, status, error) VALUES (%(folder)s, %(path)s, %(title)s, "
        "%(type)s, %(size)s, %(mtime)s, %(hash)s, %(pages)s, 0, %(now)s, %(meta)s, %(container)s, %(part)s, "
        "%(part_label)s, %(status)s, %(error)s) RETURNING id", values)))


def _write_chunks(conn: psycopg.Connection, doc_id: int, doc: NewDocument, chunks: Iterable[NewChunk],
                  reuse_from: Sequence[int]) -> None:
    count = insert_chunks(conn, doc_id, index_title(doc.title, Path(doc.path)), chunks, reuse_from)
    if count:
        conn.execute("UPDATE documents SET chunk_count = %s WHERE id = %s", (count, doc_id))


def _write_part(conn: psycopg.Connection, file: NewDocument, part: NewPart, path: str, doc_id: int | None,
                reuse_from: Sequence[int]) -> None:
    """One document inside `file`, keyed "<file>#<part>" (a failed one keeps its reason)."""
    doc = replace(part.doc, path=path, folder_id=file.folder_id, size=file.size, mtime_ns=file.mtime_ns,
                  digest=file.digest)
    if part.reason:
        doc = replace(doc, pages=None, metadata=None)
    doc_id = _upsert(conn, doc, doc_id, container=file.path, part=part.part, part_label=part.label,
                     reason=part.reason)
    if not part.reason:
        _write_chunks(conn, doc_id, doc, part.chunks, reuse_from)


def _drop_parts(conn: psycopg.Connection, machine: str, path: str) -> None:
    """Delete the documents inside the file at `path` (their chunks, vectors and OCR pages cascade)."""
    conn.execute("DELETE FROM documents d WHERE d.container = %(p)s AND" + _MINE, {"p": path, "m": machine})


def _drop_duplicates(conn: psycopg.Connection, machine: str, path: str, keep: int | None) -> None:
    """Nested folders could each hold a row for one path; like the embedded engine, keep one."""
    conn.execute("DELETE FROM documents d WHERE d.path = %(p)s AND d.id <> %(k)s AND" + _MINE,
                 {"p": path, "k": keep or -1, "m": machine})


def _move(conn: psycopg.Connection, machine: str, doc_id: int, folder_id: int, new_path: str, size: int,
          mtime_ns: int) -> int:
    """Update the path and the title terms (parts follow their file). A title that came from the old file name
    follows the new name."""
    row = conn.execute("SELECT path, title FROM documents WHERE id = %s", (doc_id,)).fetchone()
    if row is None:
        return 0
    old_path, title = row
    if title == title_from_path(Path(old_path)):
        title = title_from_path(Path(new_path))
    conn.execute("UPDATE documents SET folder_id=%s, path=%s, title=%s, size=%s, mtime_ns=%s WHERE id=%s",
                 (folder_id, new_path, title, size, mtime_ns, doc_id))
    _rewrite_terms(conn, doc_id, index_title(title, Path(new_path)))
    for part_id, part, part_title in conn.execute(
            "SELECT d.id, d.part, d.title FROM documents d WHERE d.container = %(p)s AND" + _MINE,
            {"p": old_path, "m": machine}).fetchall():
        conn.execute("UPDATE documents SET folder_id=%s, path=%s, container=%s WHERE id=%s",
                     (folder_id, f"{new_path}#{part}", new_path, part_id))
        _rewrite_terms(conn, part_id, index_title(part_title, Path(new_path)))
    return 1


def _rewrite_terms(conn: psycopg.Connection, doc_id: int, fts_title: str) -> None:
    texts = conn.execute("SELECT id, text FROM chunks WHERE document_id = %s", (doc_id,)).fetchall()
    if texts:
        conn.execute("UPDATE chunks SET terms = u.v::tsvector FROM unnest(%s::bigint[], %s::text[]) AS u(id, v) "
                     "WHERE chunks.id = u.id", ([r[0] for r in texts], [chunk_terms(fts_title, r[1]) for r in texts]))


def metadata_json(value: Any) -> dict[str, Any] | None:
    """A jsonb column as a dict (psycopg already decodes it; a string is decoded here)."""
    if value is None or isinstance(value, dict):
        return value
    return json.loads(value)
