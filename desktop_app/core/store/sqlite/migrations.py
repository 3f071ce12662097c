"""The SQLite engine's schema: ordered, named, append-only migrations, each in one transaction with its record.

Each migration carries its own DDL and never calls runtime code, so what it does is fixed forever; a schema
change is a new migration at the end of the list. A database written by a newer Trove (a migration id we do
not know) is refused, never touched. tests/integration/store/test_upgrades.py opens libraries made at every
earlier schema version.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from desktop_app.core.errors import ReadOnlyDatabaseError, SchemaTooNewError
from desktop_app.core.log import get_logger
from desktop_app.core.store.migration import MigrationRegistry
from desktop_app.core.store.sqlite.backup import upgrade_snapshot
from desktop_app.core.store.sqlite.connect import Connection, run_script, transaction

log = get_logger("db")


migration = MigrationRegistry()  # @migration on `def m<id>_<name>(conn)` appends it, in file order


@migration
def m001_core(conn: Connection) -> None:
    """Folders, documents, chunks, the FTS5 index and meta."""
    run_script(
        conn,
        """
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
        title, text, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
        DELETE FROM chunks_fts WHERE rowid = old.id;
    END;
    """,
    )


@migration
def m002_vectors(conn: Connection) -> None:
    """The sqlite-vec index as first shipped: one normalised 384-d vector per chunk, rowid = chunk id."""
    run_script(
        conn,
        """
    CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[384]);
    CREATE TRIGGER chunks_vec_delete AFTER DELETE ON chunks BEGIN
        DELETE FROM chunks_vec WHERE rowid = old.id;
    END;
    """,
    )


@migration
def m003_chats(conn: Connection) -> None:
    """Chat sessions and their messages (with citations as JSON)."""
    run_script(
        conn,
        """
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
    """,
    )


@migration
def m004_message_passages(conn: Connection) -> None:
    """Every passage sent with a chat answer (JSON), so a reopened chat still shows what grounded it."""
    conn.execute("ALTER TABLE messages ADD COLUMN passages TEXT NOT NULL DEFAULT '[]'")


# Libraries made between the window layout's release and this migration already have it (an earlier Trove
# edited migration 002 in place); they keep their vectors. The trigger's text tells the two apart.
_WINDOW_TRIGGER_MARK = "old.id * 8 + 7"


@migration
def m005_vector_windows(conn: Connection) -> None:
    """Up to 8 vectors per chunk (one per 256-token window of a long chunk): rowid = chunk id * 8 + window.

    Vectors in the old layout are dropped and recomputed in the background (the keyword index is untouched).
    """
    trigger = conn.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'chunks_vec_delete'"
    ).fetchone()
    if trigger is not None and _WINDOW_TRIGGER_MARK in (trigger[0] or ""):
        return
    dim_row = conn.execute("SELECT value FROM meta WHERE key = 'embed_dim'").fetchone()
    dim = int(dim_row[0]) if dim_row else 384
    run_script(
        conn,
        f"""
    DROP TRIGGER IF EXISTS chunks_vec_delete;
    DROP TABLE IF EXISTS chunks_vec;
    CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[{dim}]);
    CREATE TRIGGER chunks_vec_delete AFTER DELETE ON chunks WHEN old.embedded = 1 BEGIN
        DELETE FROM chunks_vec WHERE rowid = old.id * 8 + 0;
        DELETE FROM chunks_vec WHERE rowid = old.id * 8 + 1;
        DELETE FROM chunks_vec WHERE rowid = old.id * 8 + 2;
        DELETE FROM chunks_vec WHERE rowid = old.id * 8 + 3;
        DELETE FROM chunks_vec WHERE rowid = old.id * 8 + 4;
        DELETE FROM chunks_vec WHERE rowid = old.id * 8 + 5;
        DELETE FROM chunks_vec WHERE rowid = old.id * 8 + 6;
        DELETE FROM chunks_vec WHERE rowid = old.id * 8 + 7;
    END;
    UPDATE chunks SET embedded = 0;
    """,
    )


@migration
def m006_keyword_fields(conn: Connection) -> None:
    """The keyword index of the multilingual text pipeline (core/text): columns title, words, stems, grams holding
    pre-segmented tokens, FTS5's `ascii` tokenizer; and each chunk's main language.

    The new table starts empty: the store refills it from chunks.text in the background (no re-extraction),
    because its content depends on the tokenizer version recorded in meta, not on the schema.
    """
    run_script(conn, """
    DROP TRIGGER IF EXISTS chunks_fts_delete;
    DROP TABLE IF EXISTS chunks_fts;
    CREATE VIRTUAL TABLE chunks_fts USING fts5(
        title, words, stems, grams, content='', contentless_delete=1, tokenize='ascii'
    );
    CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
        DELETE FROM chunks_fts WHERE rowid = old.id;
    END;
    ALTER TABLE chunks ADD COLUMN lang TEXT NOT NULL DEFAULT '';
    CREATE INDEX chunks_lang ON chunks(lang);
    DELETE FROM meta WHERE key IN ('fts_tokenizer', 'fts_rebuilt_to');
    """)


@migration
def m007_page_labels_and_ocr(conn: Connection) -> None:
    """How a citation names a chunk's page ("slide 3", "sheet Budget rows 2-41"), whether its text came from OCR,
    and the OCR phase's work list: pages with no text layer, pending until OCR reads them (their text is kept, so
    re-chunking an unchanged file never OCRs it again)."""
    run_script(conn, """
    ALTER TABLE chunks ADD COLUMN label TEXT NOT NULL DEFAULT '';
    ALTER TABLE chunks ADD COLUMN ocr INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE ocr_pages (
        document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        page INTEGER NOT NULL,
        label TEXT NOT NULL DEFAULT '',
        file_hash TEXT NOT NULL,                   -- the file's content hash when the page was listed
        status TEXT NOT NULL DEFAULT 'pending',    -- pending | done | failed
        text TEXT,                                 -- what OCR read (done)
        confidence REAL,
        reason TEXT,                               -- why OCR could not read it (failed)
        PRIMARY KEY (document_id, page)
    );
    CREATE INDEX ocr_pages_pending ON ocr_pages(document_id, page) WHERE status = 'pending';
    """)


@migration
def m008_documents_inside_files(conn: Connection) -> None:
    """Documents found inside a file (the messages of a mailbox, attachments): each is a row of its own, keyed
    "<file>#<part>", that names the file it lives in. Written, replaced and deleted together with that file."""
    run_script(conn, """
    ALTER TABLE documents ADD COLUMN container TEXT;            -- the file a part lives in; NULL for files
    ALTER TABLE documents ADD COLUMN part TEXT NOT NULL DEFAULT '';
    ALTER TABLE documents ADD COLUMN part_label TEXT NOT NULL DEFAULT '';  -- "message 3 · report.pdf"
    CREATE INDEX documents_container ON documents(container) WHERE container IS NOT NULL;
    """)


@migration
def m009_memory(conn: Connection) -> None:
    """Conversation memory (core/memory): facts about the person, raw chunks of chat history with breadcrumbs, each
    with a keyword index of core/text's fields and (raw chunks) window vectors, and what recall already injected.

    Deleting a chat deletes its memory (the trigger below; a chat_id is not a foreign key, so memory kept in a
    local file beside a team library, whose chats live on the server, works the same way)."""
    dim_row = conn.execute("SELECT value FROM meta WHERE key = 'embed_dim'").fetchone()
    dim = int(dim_row[0]) if dim_row else 384
    run_script(conn, f"""
    CREATE TABLE memory_facts (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL,                         -- normalised: preferred_language, staging_port
        value TEXT NOT NULL,
        category TEXT NOT NULL DEFAULT '',
        source TEXT NOT NULL,                      -- user_explicit | conversation | document
        confidence REAL NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        expires_at REAL,
        superseded_by INTEGER,                     -- the fact that corrected this one (kept, flagged outdated)
        merged_keys TEXT NOT NULL DEFAULT '[]',    -- JSON: other spellings of the key merged into this fact
        chat_id INTEGER,                           -- where it was said (NULL: the Memory panel, the CLI)
        turn INTEGER,
        embedding BLOB                             -- float32 vector of "key: value" (memory_embed_model)
    );
    CREATE INDEX memory_facts_current ON memory_facts(key) WHERE superseded_by IS NULL;
    CREATE INDEX memory_facts_chat ON memory_facts(chat_id) WHERE chat_id IS NOT NULL;
    CREATE VIRTUAL TABLE memory_facts_fts USING fts5(
        title, words, stems, grams, content='', contentless_delete=1, tokenize='ascii'
    );
    CREATE TRIGGER memory_facts_fts_delete AFTER DELETE ON memory_facts BEGIN
        DELETE FROM memory_facts_fts WHERE rowid = old.id;
    END;
    CREATE TABLE memory_chunks (
        id INTEGER PRIMARY KEY,
        chat_id INTEGER NOT NULL,
        chat_title TEXT NOT NULL DEFAULT '',
        first_turn INTEGER NOT NULL,
        last_turn INTEGER NOT NULL,
        text TEXT NOT NULL,                        -- at most 4,000 characters, never rewritten
        text_hash TEXT NOT NULL,
        breadcrumbs TEXT NOT NULL DEFAULT '[]',    -- JSON [[kind, text], ...]
        lang TEXT NOT NULL DEFAULT '',
        embedded INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        UNIQUE (chat_id, text_hash)
    );
    CREATE INDEX memory_chunks_chat ON memory_chunks(chat_id, last_turn);
    CREATE INDEX memory_chunks_pending ON memory_chunks(id) WHERE embedded = 0;
    CREATE VIRTUAL TABLE memory_fts USING fts5(
        title, words, stems, grams, content='', contentless_delete=1, tokenize='ascii'
    );
    CREATE VIRTUAL TABLE memory_vec USING vec0(embedding float[{dim}]);
    CREATE TRIGGER memory_chunks_delete AFTER DELETE ON memory_chunks BEGIN
        DELETE FROM memory_fts WHERE rowid = old.id;
        DELETE FROM memory_vec WHERE rowid = old.id * 8 + 0;
        DELETE FROM memory_vec WHERE rowid = old.id * 8 + 1;
        DELETE FROM memory_vec WHERE rowid = old.id * 8 + 2;
        DELETE FROM memory_vec WHERE rowid = old.id * 8 + 3;
        DELETE FROM memory_vec WHERE rowid = old.id * 8 + 4;
        DELETE FROM memory_vec WHERE rowid = old.id * 8 + 5;
        DELETE FROM memory_vec WHERE rowid = old.id * 8 + 6;
        DELETE FROM memory_vec WHERE rowid = old.id * 8 + 7;
        DELETE FROM memory_recalls WHERE chunk_id = old.id;
    END;
    CREATE TABLE memory_recalls (
        chat_id INTEGER NOT NULL,
        chunk_id INTEGER NOT NULL,
        recalled_at REAL NOT NULL,
        PRIMARY KEY (chat_id, chunk_id)
    );
    CREATE TRIGGER chats_memory_delete AFTER DELETE ON chats BEGIN
        UPDATE memory_facts SET superseded_by = NULL
            WHERE superseded_by IN (SELECT id FROM memory_facts WHERE chat_id = old.id);
        DELETE FROM memory_chunks WHERE chat_id = old.id;
        DELETE FROM memory_facts WHERE chat_id = old.id;
        DELETE FROM memory_recalls WHERE chat_id = old.id;
    END;
    """)


@migration
def m010_keyword_generation(conn: Connection) -> None:
    """meta.kw_generation counts changes to what the keyword side index (keyword_index.py) is made of: the
    writer bumps it with each keyword row, these triggers when chunks go or a document changes folder or type."""
    run_script(conn, """
    CREATE TRIGGER chunks_kw_generation AFTER DELETE ON chunks BEGIN
        INSERT INTO meta (key, value) VALUES ('kw_generation', '1')
            ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
    END;
    CREATE TRIGGER documents_kw_generation AFTER UPDATE OF folder_id, type ON documents BEGIN
        INSERT INTO meta (key, value) VALUES ('kw_generation', '1')
            ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
    END;
    """)


@migration
def m011_document_counts(conn: Connection) -> None:
    """Documents, failures and chunks per folder and type, and chunks per language, kept by triggers: `trove stats`,
    the status bar and the folder panel read a few rows instead of scanning every document and chunk (85 s cold
    at 1M chunks). Failed documents get an index of their own for the failures list."""
    add_counts = """
            INSERT INTO doc_counts (folder_id, type, documents, failed, chunks)
                VALUES (new.folder_id, COALESCE(new.type, ''), new.status = 'indexed', new.status = 'failed',
                        COALESCE(new.chunk_count, 0))
                ON CONFLICT(folder_id, type) DO UPDATE SET documents = documents + excluded.documents,
                    failed = failed + excluded.failed, chunks = chunks + excluded.chunks;"""
    take_counts = """
            UPDATE doc_counts SET documents = documents - (old.status = 'indexed'),
                failed = failed - (old.status = 'failed'), chunks = chunks - COALESCE(old.chunk_count, 0)
                WHERE folder_id = old.folder_id AND type = COALESCE(old.type, '');"""
    add_lang = """
            INSERT INTO lang_counts (lang, chunks) VALUES (COALESCE(new.lang, ''), 1)
                ON CONFLICT(lang) DO UPDATE SET chunks = chunks + 1;"""
    take_lang = """
            UPDATE lang_counts SET chunks = chunks - 1 WHERE lang = COALESCE(old.lang, '');"""
    run_script(conn, f"""
    CREATE TABLE doc_counts (
        folder_id INTEGER NOT NULL,
        type TEXT NOT NULL,
        documents INTEGER NOT NULL DEFAULT 0,
        failed INTEGER NOT NULL DEFAULT 0,
        chunks INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (folder_id, type)
    ) WITHOUT ROWID;
    INSERT INTO doc_counts (folder_id, type, documents, failed, chunks)
        SELECT folder_id, COALESCE(type, ''), SUM(status = 'indexed'), SUM(status = 'failed'),
               COALESCE(SUM(chunk_count), 0)
        FROM documents GROUP BY folder_id, COALESCE(type, '');
    CREATE TRIGGER doc_counts_insert AFTER INSERT ON documents BEGIN {add_counts}
    END;
    CREATE TRIGGER doc_counts_delete AFTER DELETE ON documents BEGIN {take_counts}
    END;
    CREATE TRIGGER doc_counts_update AFTER UPDATE OF folder_id, type, status, chunk_count ON documents BEGIN
        {take_counts}
        {add_counts}
    END;
    CREATE INDEX documents_failed ON documents(path) WHERE status = 'failed';
    CREATE TABLE lang_counts (lang TEXT PRIMARY KEY, chunks INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
    INSERT INTO lang_counts (lang, chunks) SELECT COALESCE(lang, ''), COUNT(*) FROM chunks GROUP BY COALESCE(lang, '');
    CREATE TRIGGER lang_counts_insert AFTER INSERT ON chunks BEGIN {add_lang}
    END;
    CREATE TRIGGER lang_counts_delete AFTER DELETE ON chunks BEGIN {take_lang}
    END;
    CREATE TRIGGER lang_counts_update AFTER UPDATE OF lang ON chunks BEGIN
        {take_lang}
        {add_lang}
    END;
    """)


@migration
def m012_document_dates_and_tags(conn: Connection) -> None:
    """A document's own date (an ISO day from its metadata or first lines; NULL: its modified time counts) and its
    tags as '|tag|tag|' (case-folded, from front matter, #tags and office keywords), written at index time for the
    query language's after:/before:/date:/tag: filters. Tags from folder names are read from paths at query time."""
    run_script(conn, """
    ALTER TABLE documents ADD COLUMN doc_date TEXT;
    ALTER TABLE documents ADD COLUMN tags TEXT;
    CREATE INDEX documents_doc_date ON documents(doc_date) WHERE doc_date IS NOT NULL;
    """)


@migration
def m013_documents_not_read(conn: Connection) -> None:
    """Files seen and never read (hidden, of a type Trove does not read) are document rows with status 'not_read'
    and their reason, for the ledger; this index holds only them, so `trove stats` counts them without a scan."""
    run_script(conn, """
    CREATE INDEX documents_not_read ON documents(path) WHERE status = 'not_read';
    """)


@migration
def m014_ocr_words(conn: Connection) -> None:
    """The words OCR read on a page with their boxes (JSON, core/ocr/words.py), kept with its text, so the viewer
    highlights a passage on a scanned page. Pages read before this stay without (no highlight until re-read)."""
    run_script(conn, """
    ALTER TABLE ocr_pages ADD COLUMN words TEXT;
    """)



@migration
def m015_wikilinks_and_document_generation(conn: Connection) -> None:
    """A Markdown note's [[wikilinks]] (JSON, core/store/link_rows.py), written at index time so a result can follow
    them; and meta.doc_generation, bumped by triggers whenever a document or a folder's path changes, so the chunks
    a path, date or tag filter allows are read once per change (sqlite/allowed.py), not on every query."""
    bump = "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'doc_generation';"
    run_script(conn, f"""
    ALTER TABLE documents ADD COLUMN links TEXT;
    INSERT OR IGNORE INTO meta (key, value) VALUES ('doc_generation', '0');
    CREATE TRIGGER doc_generation_insert AFTER INSERT ON documents BEGIN {bump} END;
    CREATE TRIGGER doc_generation_update AFTER UPDATE ON documents BEGIN {bump} END;
    CREATE TRIGGER doc_generation_delete AFTER DELETE ON documents BEGIN {bump} END;
    CREATE TRIGGER doc_generation_folder AFTER UPDATE OF path ON folders BEGIN {bump} END;
    """)


@migration
def m016_keyword_generation_of_dates_and_tags(conn: Connection) -> None:
    """The keyword side index holds each chunk's document date and tags (keyword_index.py): meta.kw_generation now
    counts a document whose date (its own, else its modified day), tags or path changes, and a library folder whose
    path changes (its documents' folder-name tags), so an index built before is stale. Only real changes count: an
    index run writing the same date and tags again leaves the index current."""
    bump = ("INSERT INTO meta (key, value) VALUES ('kw_generation', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;")
    day = "COALESCE({0}.doc_date, date({0}.mtime_ns / 1000000000, 'unixepoch'))"
    run_script(conn, f"""
    CREATE TRIGGER documents_kw_dates_and_tags AFTER UPDATE OF doc_date, mtime_ns, tags, path ON documents
    WHEN {day.format('NEW')} IS NOT {day.format('OLD')} OR NEW.tags IS NOT OLD.tags OR NEW.path IS NOT OLD.path
    BEGIN {bump} END;
    CREATE TRIGGER folders_kw_path AFTER UPDATE OF path ON folders WHEN NEW.path IS NOT OLD.path BEGIN {bump} END;
    """)


Migration = Callable[[Connection], None]
MIGRATIONS: list[tuple[int, str, Migration]] = migration.entries
SCHEMA_VERSION = MIGRATIONS[-1][0]


def applied_migrations(conn: Connection) -> set[int]:
    """Ids of the migrations already recorded in this database."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)"
    )
    return {row[0] for row in conn.execute("SELECT id FROM migrations")}


def _refuse_newer(done: set[int]) -> None:
    unknown = sorted(done - {mid for mid, _, _ in MIGRATIONS})
    if unknown:
        raise SchemaTooNewError(
            f"This library was written by a newer version of Trove (schema {max(unknown)}; "
            f"this version knows up to {SCHEMA_VERSION}). Update Trove to open it; nothing was changed."
        )


def check_readable(conn: Connection) -> None:
    """For a library opened read-only: refuse a newer schema, and an older one (its upgrade cannot be written)."""
    has_table = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'").fetchone()
    done = {row[0] for row in conn.execute("SELECT id FROM migrations")} if has_table else set()
    _refuse_newer(done)
    if len(done) < len(MIGRATIONS):
        raise ReadOnlyDatabaseError(
            f"This library (schema {max(done, default=0)}) needs an upgrade to schema {SCHEMA_VERSION}, which cannot "
            "be written here (read-only); copy its folder somewhere writable and open it there."
        )


def migrate(conn: Connection, db_path: Path | None = None) -> int:
    """Bring the schema up to date; refuse a database from a newer Trove. Returns the schema version.

    With `db_path` (a library file), an existing library with migrations pending is first copied aside
    (upgrade_snapshot.py), and the snapshot of an earlier upgrade is marked finished or deleted after this start."""
    done = applied_migrations(conn)
    _refuse_newer(done)
    upgrading = bool(done) and any(mid not in done for mid, _, _ in MIGRATIONS)
    if upgrading and db_path is not None:
        upgrade_snapshot.before_migrations(conn, db_path, done, SCHEMA_VERSION)
    for mid, name, func in MIGRATIONS:
        if mid in done:
            continue
        with transaction(conn):
            func(conn)
            conn.execute("INSERT INTO migrations (id, name, applied_at) VALUES (?, ?, ?)", (mid, name, time.time()))
        log.info("applied migration %03d_%s", mid, name)
    if db_path is not None:
        upgrade_snapshot.after_start(db_path, migrated=upgrading)
    return SCHEMA_VERSION
