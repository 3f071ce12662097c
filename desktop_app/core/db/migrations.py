"""Ordered, named migrations; each runs in one transaction together with its record.

A database written by a newer Trove (a migration id we do not know) is refused, never touched.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import sqlean as sqlite3

from desktop_app.core.db.connect import transaction
from desktop_app.core.errors import SchemaTooNewError
from desktop_app.core.log import get_logger

log = get_logger("db")

EMBED_DIM_DEFAULT = 384
FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"


def m001_core(conn) -> None:
    """Folders, documents, chunks, the FTS5 index and meta."""
    run_script(conn, f"""
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE folders (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        state TEXT NOT NULL DEFAULT 'active',      -- active | paused | offline
        added_at REAL NOT NULL,
        last_scan REAL
    );
    CREATE TABLE documents (
        id INTEGER PRIMARY KEY,
        folder_id INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
        path TEXT NOT NULL UNIQUE,
        title TEXT NOT NULL DEFAULT '',
        type TEXT NOT NULL DEFAULT '',
        size INTEGER NOT NULL DEFAULT 0,
        mtime_ns INTEGER NOT NULL DEFAULT 0,
        content_hash TEXT NOT NULL DEFAULT '',
        pages INTEGER,
        status TEXT NOT NULL,                      -- indexed | failed
        error TEXT,
        metadata TEXT,                             -- JSON from the memory API (None for files)
        chunk_count INTEGER NOT NULL DEFAULT 0,
        indexed_at REAL NOT NULL
    );
    CREATE INDEX documents_folder ON documents(folder_id);
    CREATE INDEX documents_hash ON documents(content_hash);
    CREATE TABLE chunks (
        id INTEGER PRIMARY KEY,
        document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        page INTEGER,
        start INTEGER NOT NULL,
        end INTEGER NOT NULL,
        text TEXT NOT NULL,
        text_hash TEXT NOT NULL,
        embedded INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX chunks_document ON chunks(document_id, ordinal);
    CREATE INDEX chunks_pending ON chunks(id) WHERE embedded = 0;
    CREATE VIRTUAL TABLE chunks_fts USING fts5(
        title, text, content='', contentless_delete=1, tokenize='{FTS_TOKENIZER}'
    );
    CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
        DELETE FROM chunks_fts WHERE rowid = old.id;
    END;
    """)


def m002_vectors(conn) -> None:
    """The sqlite-vec index: one normalised vector per chunk, rowid = chunk id."""
    create_vector_table(conn, EMBED_DIM_DEFAULT)


def m003_chats(conn) -> None:
    """Chat sessions and their messages (with citations as JSON)."""
    run_script(conn, """
    CREATE TABLE chats (
        id INTEGER PRIMARY KEY,
        title TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        chat_id INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
        role TEXT NOT NULL,                        -- system | user | assistant
        content TEXT NOT NULL,
        citations TEXT NOT NULL DEFAULT '[]',      -- JSON list of resolved citations
        created_at REAL NOT NULL
    );
    CREATE INDEX messages_chat ON messages(chat_id, id);
    """)


def run_script(conn, sql: str) -> None:
    """Run several statements inside the caller's transaction (executescript would COMMIT it)."""
    buf = ""
    for line in sql.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                conn.execute(buf)
            buf = ""
    if buf.strip():
        conn.execute(buf)


# A chunk longer than the embedding model's window gets one vector per window (up to this many); vector
# rowid = chunk id * VECTORS_PER_CHUNK + window. Search keeps a chunk's best window (max-sim).
VECTORS_PER_CHUNK = 8


def vector_rowid(chunk_id: int, window: int) -> int:
    """The chunks_vec rowid of one window of a chunk."""
    return chunk_id * VECTORS_PER_CHUNK + window


def create_vector_table(conn, dim: int) -> None:
    """(Re)create chunks_vec for `dim`-sized vectors, with the trigger that keeps it free of stale rows.

    The trigger deletes by rowid equality, one statement per window slot: vec0 answers `rowid = ?` directly
    but scans the whole table for a range or IN.
    """
    deletes = "\n".join(f"        DELETE FROM chunks_vec WHERE rowid = old.id * {VECTORS_PER_CHUNK} + {w};"
                         for w in range(VECTORS_PER_CHUNK))
    run_script(conn, f"""
    DROP TRIGGER IF EXISTS chunks_vec_delete;
    DROP TABLE IF EXISTS chunks_vec;
    CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[{int(dim)}]);
    CREATE TRIGGER chunks_vec_delete AFTER DELETE ON chunks WHEN old.embedded = 1 BEGIN
{deletes}
    END;
    UPDATE chunks SET embedded = 0;
    """)


def m004_message_passages(conn) -> None:
    """Every passage sent with a chat answer (JSON), so a reopened chat still shows what grounded it."""
    conn.execute("ALTER TABLE messages ADD COLUMN passages TEXT NOT NULL DEFAULT '[]'")


MIGRATIONS: list[tuple[int, str, Callable]] = [
    (1, "core", m001_core),
    (2, "vectors", m002_vectors),
    (3, "chats", m003_chats),
    (4, "message_passages", m004_message_passages),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]


def applied_migrations(conn) -> set[int]:
    """Ids of the migrations already recorded in this database."""
    conn.execute("CREATE TABLE IF NOT EXISTS migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)")
    return {row[0] for row in conn.execute("SELECT id FROM migrations")}


def migrate(conn) -> int:
    """Bring the schema up to date; refuse a database from a newer Trove. Returns the schema version."""
    done = applied_migrations(conn)
    known = {mid for mid, _, _ in MIGRATIONS}
    unknown = sorted(done - known)
    if unknown:
        raise SchemaTooNewError(
            f"This library was written by a newer version of Trove (schema {max(unknown)}; "
            f"this version knows up to {SCHEMA_VERSION}). Update Trove to open it; nothing was changed."
        )
    for mid, name, func in MIGRATIONS:
        if mid in done:
            continue
        with transaction(conn):
            func(conn)
            conn.execute("INSERT INTO migrations (id, name, applied_at) VALUES (?, ?, ?)", (mid, name, time.time()))
        log.info("applied migration %03d_%s", mid, name)
    return SCHEMA_VERSION
