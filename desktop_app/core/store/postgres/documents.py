"""Documents and chunks on the server: one transaction per call, vectors of unchanged chunk texts kept server-side.

Paths are looked up among the folders this machine watches, so two desktops may each have a /home/me/notes.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from psycopg.types.json import Jsonb

from desktop_app.core.ingest.extract import index_title, title_from_path
from desktop_app.core.store.postgres.base import PostgresBase
from desktop_app.core.store.postgres.connect import scalar
from desktop_app.core.store.postgres.folders import MY_FOLDER_IDS
from desktop_app.core.store.postgres.keywords import chunk_terms, field_tokens
from desktop_app.core.store.rows import DocRow, DocStatus, NewChunk, NewDocument
from desktop_app.core.store.sqlite.documents import text_hash

_DOC = "SELECT d.id, d.folder_id, d.path, d.size, d.mtime_ns, d.content_hash, d.status FROM documents d"
_MINE = f" d.folder_id IN ({MY_FOLDER_IDS})"
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")  # PostgreSQL text holds neither NUL nor lone surrogates


def pg_text(text: str) -> str:
    """Text PostgreSQL can store, the same length (so chunk offsets still point at the right characters)."""
    return _UNSTORABLE.sub("\ufffd", text) if _UNSTORABLE.search(text) else text


def _doc(row: Any) -> DocRow:
    return DocRow(int(row[0]), int(row[1]), row[2], int(row[3]), int(row[4]), row[5], DocStatus(row[6]))


def _by_path(conn: psycopg.Connection, machine: str, path: str, *, lock: bool = False) -> DocRow | None:
    sql = _DOC + " WHERE d.path = %(p)s AND" + _MINE + " ORDER BY d.id LIMIT 1" + (" FOR UPDATE" if lock else "")
    row = conn.execute(sql, {"p": path, "m": machine}).fetchone()
    return _doc(row) if row else None


def _doc_values(doc: NewDocument) -> dict[str, Any]:
    return {"folder": doc.folder_id, "path": pg_text(doc.path), "title": pg_text(doc.title), "type": doc.type,
            "size": doc.size, "mtime": doc.mtime_ns, "hash": doc.digest, "now": time.time()}


class DocumentSQL(PostgresBase):
    """Documents and chunks."""

    def documents_under(self, folder_id: int, prefix: str = "") -> dict[str, DocRow]:
        """A folder's document rows by path (only those below `prefix` when given)."""
        rows = self._read(lambda c: c.execute(
            _DOC + " WHERE d.folder_id = %s AND starts_with(d.path, %s)", (folder_id, prefix)).fetchall())
        return {r[2]: _doc(r) for r in rows}

    def document_by_path(self, path: str) -> DocRow | None:
        """The document row for one path (in this machine's folders)."""
        return self._read(lambda c: _by_path(c, self.machine_id, path))

    def documents_below(self, prefix: str) -> list[DocRow]:
        """Documents whose path starts with `prefix`, in any of this machine's folders."""
        rows = self._read(lambda c: c.execute(_DOC + " WHERE starts_with(d.path, %(p)s) AND" + _MINE,
                                              {"p": prefix, "m": self.machine_id}).fetchall())
        return [_doc(r) for r in rows]

    def write_document(self, doc: NewDocument, chunks: Sequence[NewChunk]) -> int:
        """Replace whatever was stored for doc.path; vectors of unchanged chunk texts are kept."""
        values = {**_doc_values(doc), "pages": doc.pages, "n": len(chunks),
                  "meta": Jsonb(doc.metadata) if doc.metadata is not None else None}
        title = field_tokens(index_title(doc.title, Path(doc.path)))
        prepared = [(c, text_hash(c.span.text), pg_text(c.span.text)) for c in chunks]
        rows = [(i, c.page, c.span.start, c.span.end, t, h, chunk_terms(title, field_tokens(t)),
                 c.vectors is not None) for i, (c, h, t) in enumerate(prepared)]

        def work(conn: psycopg.Connection) -> int:
            old = _by_path(conn, self.machine_id, doc.path, lock=True)
            if old is not None:
                _drop_duplicates(conn, self.machine_id, doc.path, old.id)
                doc_id = old.id
                conn.execute("UPDATE documents SET folder_id=%(folder)s, path=%(path)s, title=%(title)s, "
                             "type=%(type)s, size=%(size)s, mtime_ns=%(mtime)s, content_hash=%(hash)s, "
                             "pages=%(pages)s, chunk_count=%(n)s, indexed_at=%(now)s, metadata=%(meta)s, "
                             "status='indexed', error=NULL WHERE id=%(id)s", {**values, "id": doc_id})
            else:
                doc_id = int(scalar(conn.execute(
                    "INSERT INTO documents (folder_id, path, title, type, size, mtime_ns, content_hash, pages, "
                    "chunk_count, indexed_at, metadata, status) VALUES (%(folder)s, %(path)s, %(title)s, %(type)s, "
                    "%(size)s, %(mtime)s, %(hash)s, %(pages)s, %(n)s, %(now)s, %(meta)s, 'indexed') RETURNING id",
                    values)))
            old_ids = _chunk_ids(conn, doc_id) if old is not None else []
            new_ids = insert_chunks(conn, doc_id, rows)
            if old_ids:
                _reuse_vectors(conn, old_ids, new_ids)
                conn.execute("DELETE FROM chunks WHERE id = ANY(%s)", (old_ids,))
            given = [(cid, c.vectors) for cid, (c, _, _) in zip(new_ids, prepared, strict=True)
                     if c.vectors is not None]
            if given:
                insert_vectors(conn, given, fresh=True)
            return doc_id
        return self._write(work, derived=True)

    def record_failure(self, doc: NewDocument, reason: str) -> None:
        """Mark a file failed with a reason; it is retried only when it changes."""
        values = {**_doc_values(doc), "error": pg_text(reason)}

        def work(conn: psycopg.Connection) -> None:
            old = _by_path(conn, self.machine_id, doc.path, lock=True)
            _drop_duplicates(conn, self.machine_id, doc.path, old.id if old else None)
            if old is not None:
                conn.execute("DELETE FROM chunks WHERE document_id = %s", (old.id,))
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

    def move_documents(self, moves: Sequence[tuple[int, int, str, int, int]]) -> int:
        """Move documents keeping chunks and vectors (a document already at a target is replaced)."""
        def work(conn: psycopg.Connection) -> int:
            moved = 0
            for doc_id, folder_id, new_path, size, mtime_ns in moves:
                conn.execute("DELETE FROM documents d WHERE d.path = %(p)s AND d.id <> %(id)s AND" + _MINE,
                             {"p": new_path, "id": doc_id, "m": self.machine_id})
                moved += _move(conn, doc_id, folder_id, new_path, size, mtime_ns)
            return moved
        return self._write(work, derived=True)

    def delete_document(self, doc_id: int) -> bool:
        """Forget one document and everything derived from it (chunks and vectors cascade)."""
        return self._write(lambda c: c.execute("DELETE FROM documents WHERE id = %s", (doc_id,)).rowcount > 0)

    def delete_under(self, path: str) -> int:
        """Forget the document at `path` and every document below it (in this machine's folders)."""
        prefix = path.rstrip(os.sep) + os.sep
        return self._write(lambda c: c.execute(
            "DELETE FROM documents d WHERE (d.path = %(p)s OR starts_with(d.path, %(pre)s)) AND" + _MINE,
            {"p": path, "pre": prefix, "m": self.machine_id}).rowcount)

    def forget_content_hashes(self) -> None:
        """Every file of this machine's folders looks changed to the next sync (reindex)."""
        self._write(lambda c: c.execute("UPDATE documents d SET mtime_ns = -1, content_hash = '' WHERE" + _MINE,
                                        {"m": self.machine_id}))


def _drop_duplicates(conn: psycopg.Connection, machine: str, path: str, keep: int | None) -> None:
    """Nested folders could each hold a row for one path; like the embedded engine, keep one."""
    conn.execute("DELETE FROM documents d WHERE d.path = %(p)s AND d.id <> %(k)s AND" + _MINE,
                 {"p": path, "k": keep or -1, "m": machine})


def _chunk_ids(conn: psycopg.Connection, doc_id: int) -> list[int]:
    return [int(r[0]) for r in conn.execute("SELECT id FROM chunks WHERE document_id = %s", (doc_id,))]


def insert_chunks(conn: psycopg.Connection, doc_id: int, rows: Sequence[tuple]) -> list[int]:
    """Insert chunk rows (ordinal, page, start, end, text, text hash, tsvector literal, embedded) in one
    statement; returns their ids in ordinal order."""
    if not rows:
        return []
    cols = list(zip(*rows, strict=True))
    got = conn.execute(
        'INSERT INTO chunks (document_id, ordinal, page, start, "end", text, text_hash, terms, embedded) '
        "SELECT %s, o, p, s, e, t, h, v::tsvector, b FROM unnest(%s::int[], %s::int[], %s::int[], %s::int[], "
        "%s::text[], %s::text[], %s::text[], %s::bool[]) AS u(o, p, s, e, t, h, v, b) RETURNING id, ordinal",
        (doc_id, *[list(c) for c in cols])).fetchall()
    return [cid for cid, _ in sorted(got, key=lambda r: r[1])]


def _reuse_vectors(conn: psycopg.Connection, old_ids: list[int], new_ids: list[int]) -> None:
    """New chunks whose text an old chunk had take its vectors (copied on the server, never re-embedded)."""
    conn.execute(
        'INSERT INTO chunk_vectors (chunk_id, "window", embedding) '
        'SELECT DISTINCT ON (n.id, v."window") n.id, v."window", v.embedding FROM chunks n '
        "JOIN chunks o ON o.text_hash = n.text_hash AND o.id = ANY(%(old)s) AND o.embedded "
        "JOIN chunk_vectors v ON v.chunk_id = o.id WHERE n.id = ANY(%(new)s) AND NOT n.embedded "
        'ORDER BY n.id, v."window", o.id', {"old": old_ids, "new": new_ids})
    conn.execute("UPDATE chunks SET embedded = true WHERE id = ANY(%s) AND EXISTS "
                 "(SELECT 1 FROM chunk_vectors v WHERE v.chunk_id = chunks.id)", (new_ids,))


def insert_vectors(conn: psycopg.Connection, items: Sequence[tuple[int, Any]], *, fresh: bool = False) -> None:
    """Store (chunk id, (windows, dim) matrix) vectors, replacing any a chunk had, and mark the chunks embedded
    (`fresh`: chunks inserted in this transaction as embedded, with no vectors yet)."""
    from desktop_app.core.embed.base import MAX_WINDOWS

    params = []
    for cid, vectors in items:
        matrix = np.asarray(vectors, dtype=np.float32)
        for window, vec in enumerate(matrix.reshape(-1, matrix.shape[-1])[:MAX_WINDOWS]):
            params.append((cid, window, vec))
    ids = [cid for cid, _ in items]
    if not fresh:
        conn.execute("DELETE FROM chunk_vectors WHERE chunk_id = ANY(%s)", (ids,))
    with conn.cursor() as cur:
        cur.executemany('INSERT INTO chunk_vectors (chunk_id, "window", embedding) VALUES (%s, %s, %s)', params)
    if not fresh:
        conn.execute("UPDATE chunks SET embedded = true WHERE id = ANY(%s)", (ids,))


def _move(conn: psycopg.Connection, doc_id: int, folder_id: int, new_path: str, size: int, mtime_ns: int) -> int:
    """Update the path and the title tokens. A title that came from the old file name follows the new name."""
    row = conn.execute("SELECT path, title FROM documents WHERE id = %s", (doc_id,)).fetchone()
    if row is None:
        return 0
    old_path, title = row
    if title == title_from_path(Path(old_path)):
        title = title_from_path(Path(new_path))
    conn.execute("UPDATE documents SET folder_id=%s, path=%s, title=%s, size=%s, mtime_ns=%s WHERE id=%s",
                 (folder_id, pg_text(new_path), pg_text(title), size, mtime_ns, doc_id))
    tokens = field_tokens(index_title(title, Path(new_path)))
    texts = conn.execute("SELECT id, text FROM chunks WHERE document_id = %s", (doc_id,)).fetchall()
    with conn.cursor() as cur:
        cur.executemany("UPDATE chunks SET terms = %s::tsvector WHERE id = %s",
                        [(chunk_terms(tokens, field_tokens(text)), cid) for cid, text in texts])
    return 1


def metadata_json(value: Any) -> dict[str, Any] | None:
    """A jsonb column as a dict (psycopg already decodes it; a string is decoded here)."""
    if value is None or isinstance(value, dict):
        return value
    return json.loads(value)
