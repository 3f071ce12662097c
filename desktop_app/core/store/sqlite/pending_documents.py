"""New files of a write batch, their rows inserted together before any other write of the batch and before it
commits.

A batch of small files wrote each in a SAVEPOINT of its own: SAVEPOINT, a look-up of its path, its document row,
its chunk rows, RELEASE - five statements a file for a one-chunk note, most of the keyword phase's SQL time. A new
file (nothing stored at its path) with no parts, no OCR pages and no vectors of its own is queued here instead:
its rows are made in full when it is queued (language, text hash, keyword row), so all that is left is the SQL,
and a batch's queued files go in with one statement per table. Each is still all-or-nothing: a file is queued
whole or not at all, and the queue goes in inside one SAVEPOINT (a failure, a full disk say, takes all of it back
and is raised; the next sync finds those files still to do).

Ids are given when a file is queued, as SQLite would give them (one past the largest), so write_document returns
the id the row gets. That holds because every other write of the batch flushes the queue first (base._write).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from desktop_app.core.ingest.extract import index_title
from desktop_app.core.store.rows import NewChunk, NewDocument, text_hash
from desktop_app.core.store.sqlite.connect import Connection, savepoint
from desktop_app.core.store.sqlite.keyword import pending as pending_keywords
from desktop_app.core.text import detect_language

_ATTR = "pending_document_rows"
_INSERT_DOCUMENT = ("INSERT INTO documents (id, path, folder_id, title, type, size, mtime_ns, content_hash, pages, "
                    "chunk_count, indexed_at, metadata, status) VALUES (?,?,?,?,?,?,?,?,?,?,?,?, 'indexed')")
_INSERT_CHUNK = ("INSERT INTO chunks (id, document_id, ordinal, page, start, end, text, text_hash, embedded, lang, "
                 "label, ocr) VALUES (?,?,?,?,?,?,?,?,0,?,?,?)")


@dataclass
class _Queue:
    documents: list[tuple] = field(default_factory=list)
    chunks: list[tuple] = field(default_factory=list)
    paths: set[str] = field(default_factory=set)
    next_doc: int = 0  # 0: read from the table at the first file queued
    next_chunk: int = 0


def start(conn: Connection) -> None:
    """Queue new files written on `conn` from now until `stop`."""
    setattr(conn, _ATTR, _Queue())


def stop(conn: Connection) -> None:
    """Stop queueing and forget what is queued (the batch rolled back whole)."""
    setattr(conn, _ATTR, None)


def queue(conn: Connection, doc: NewDocument, chunks: list[NewChunk]) -> int | None:
    """Queue a new file's rows and return its document id; None when it must be written now (no batch is open,
    its path has a row, or a chunk brings its own vectors)."""
    q: _Queue | None = getattr(conn, _ATTR, None)
    if q is None or doc.path in q.paths or any(c.vectors is not None for c in chunks):
        return None
    if conn.execute("SELECT 1 FROM documents WHERE path = ?", (doc.path,)).fetchone() is not None:
        return None
    if not q.next_doc:
        q.next_doc = _next_id(conn, "documents")
        q.next_chunk = _next_id(conn, "chunks")
    doc_id, first = q.next_doc, q.next_chunk
    rows = []
    for ordinal, chunk in enumerate(chunks):
        span = chunk.span
        rows.append((first + ordinal, doc_id, ordinal, chunk.page, span.start, span.end, span.text,
                     text_hash(span.text), detect_language(span.text), chunk.label, int(chunk.ocr)))
    meta = json.dumps(doc.metadata) if doc.metadata is not None else None
    document = (doc_id, doc.path, doc.folder_id, doc.title, doc.type, doc.size, doc.mtime_ns, doc.digest, doc.pages,
                len(rows), time.time(), meta)
    fts_title = index_title(doc.title, Path(doc.path))
    mark = pending_keywords.mark(conn)
    try:
        for row in rows:  # queued by pending_keywords (a batch is open); the last thing that can raise
            pending_keywords.write_row(conn, row[0], fts_title, row[6], fresh=True)
    except BaseException:
        pending_keywords.rolled_back(conn, mark)
        raise
    q.documents.append(document)
    q.chunks += rows
    q.paths.add(doc.path)
    q.next_doc, q.next_chunk = doc_id + 1, first + len(rows)
    return doc_id


def flush(conn: Connection) -> int:
    """Insert the queued files' rows (keyword rows are pending_keywords'), in one SAVEPOINT; queueing goes on.
    Returns how many files went in."""
    q: _Queue | None = getattr(conn, _ATTR, None)
    if not q or not q.documents:
        return 0
    setattr(conn, _ATTR, _Queue())  # taken whole: rows that fail to go in are not tried twice
    with savepoint(conn, "trove_queued"):
        conn.executemany(_INSERT_DOCUMENT, q.documents)
        conn.executemany(_INSERT_CHUNK, q.chunks)
    return len(q.documents)


def _next_id(conn: Connection, table: str) -> int:
    return int(conn.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}").fetchone()[0])
