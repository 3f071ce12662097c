"""The PostgreSQL engine's schema: ordered, named, append-only migrations, each in one transaction with its record.

Each migration carries its own DDL and never calls runtime code. A database written by a newer Trove (a
migration id we do not know) is refused, never touched. Two desktops opening a new library at once are
serialised by an advisory lock, so each migration runs exactly once.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import psycopg
from psycopg import sql

import desktop_app.core.store.postgres.connect as pgc
from desktop_app.core.errors import KnownError, SchemaTooNewError
from desktop_app.core.log import get_logger
from desktop_app.core.store.migration import MigrationRegistry
from desktop_app.core.store.postgres.access.permissions import (
    create_schema,
    grant_counts,
    grant_people,
    is_person,
    no_sequence_reads,
    people_lack_grants,
)
from desktop_app.core.store.postgres.memory.schema import create_memory_schema

log = get_logger("db")

MIGRATION_LOCK = 0x7472_6F76  # "trov": the advisory lock id that serialises schema changes


migration = MigrationRegistry()  # @migration on `def m<id>_<name>(conn)` appends it, in file order


@migration
def m001_core(conn: psycopg.Connection) -> None:
    """Meta, folders (per machine + path) with their watchers and leases, documents, chunks with a tsvector."""
    conn.execute("""
    CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);
    CREATE TABLE folders (
        id bigserial PRIMARY KEY,
        machine_id text NOT NULL,                  -- the machine whose disk the path is on
        path text NOT NULL,
        added_at double precision NOT NULL,
        UNIQUE (machine_id, path)
    );
    CREATE TABLE folder_watchers (                 -- every machine that watches a folder (its own state)
        folder_id bigint NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
        machine_id text NOT NULL,
        state text NOT NULL DEFAULT 'active',      -- active | paused | offline
        added_at double precision NOT NULL,
        last_scan double precision,
        PRIMARY KEY (folder_id, machine_id)
    );
    CREATE INDEX folder_watchers_machine ON folder_watchers(machine_id);
    CREATE TABLE folder_leases (                   -- who indexes a folder now
        folder_id bigint PRIMARY KEY REFERENCES folders(id) ON DELETE CASCADE,
        machine_id text NOT NULL,
        expires_at timestamptz NOT NULL
    );
    CREATE TABLE documents (
        id bigserial PRIMARY KEY,
        folder_id bigint NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
        path text NOT NULL,
        title text NOT NULL DEFAULT '',
        type text NOT NULL DEFAULT '',
        size bigint NOT NULL DEFAULT 0,
        mtime_ns bigint NOT NULL DEFAULT 0,
        content_hash text NOT NULL DEFAULT '',
        pages integer,
        status text NOT NULL,                      -- indexed | failed
        error text,
        metadata jsonb,
        chunk_count integer NOT NULL DEFAULT 0,
        indexed_at double precision NOT NULL,
        UNIQUE (folder_id, path)
    );
    CREATE INDEX documents_path ON documents(path text_pattern_ops);
    CREATE TABLE chunks (
        id bigserial PRIMARY KEY,
        document_id bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        ordinal integer NOT NULL,
        page integer,
        start integer NOT NULL,
        "end" integer NOT NULL,
        text text NOT NULL,
        text_hash text NOT NULL,
        embedded boolean NOT NULL DEFAULT false,
        terms tsvector NOT NULL                    -- title (weight A) + text, pre-segmented by Trove
    );
    CREATE INDEX chunks_document ON chunks(document_id, ordinal);
    CREATE INDEX chunks_pending ON chunks(id) WHERE NOT embedded;
    CREATE INDEX chunks_terms ON chunks USING gin (terms);
    """)


@migration
def m002_vectors(conn: psycopg.Connection) -> None:
    """pgvector: one row per window of a chunk (MiniLM's 384 dims until a model says otherwise), HNSW cosine."""
    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    conn.execute("""
    CREATE TABLE chunk_vectors (
        chunk_id bigint NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        "window" smallint NOT NULL,
        embedding vector(384) NOT NULL,
        PRIMARY KEY (chunk_id, "window")
    );
    CREATE INDEX chunk_vectors_hnsw ON chunk_vectors USING hnsw (embedding vector_cosine_ops);
    """)


@migration
def m003_chats(conn: psycopg.Connection) -> None:
    """Chat sessions and their messages (citations and passages as JSON)."""
    conn.execute("""
    CREATE TABLE chats (
        id bigserial PRIMARY KEY,
        title text NOT NULL DEFAULT '',
        created_at double precision NOT NULL,
        updated_at double precision NOT NULL
    );
    CREATE TABLE messages (
        id bigserial PRIMARY KEY,
        chat_id bigint NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
        role text NOT NULL,
        content text NOT NULL,
        citations jsonb NOT NULL DEFAULT '[]',
        passages jsonb NOT NULL DEFAULT '[]',
        created_at double precision NOT NULL
    );
    CREATE INDEX messages_chat ON messages(chat_id, id);
    """)


@migration
def m004_title_trigrams(conn: psycopg.Connection) -> None:
    """pg_trgm on document titles (typo-tolerant title matches) when the server has it; a notice when not."""
    try:
        with conn.transaction():  # a savepoint: without pg_trgm the migration still succeeds
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            conn.execute("CREATE INDEX documents_title_trgm ON documents USING gin (lower(title) gin_trgm_ops)")
    except psycopg.Error as exc:
        log.warning("pg_trgm is not available on this server (%s): typo-tolerant title matching is off",
                    type(exc).__name__)


@migration
def m005_text_pipeline_ocr_parts(conn: psycopg.Connection) -> None:
    """What the embedded engine's migrations 006-008 brought: each chunk's language, page label and OCR flag;
    the OCR phase's work list; documents inside files (a mailbox's messages, attachments) keyed "<file>#<part>".

    chunks.terms now holds core/text's tokens (title A, words B, stems C, grams D): the tokenizer record is
    cleared, so the store rewrites every chunk's terms from its stored text in the background."""
    conn.execute("""
    ALTER TABLE chunks ADD COLUMN lang text NOT NULL DEFAULT '';
    ALTER TABLE chunks ADD COLUMN label text NOT NULL DEFAULT '';
    ALTER TABLE chunks ADD COLUMN ocr boolean NOT NULL DEFAULT false;
    CREATE INDEX chunks_lang ON chunks(lang);
    ALTER TABLE documents ADD COLUMN container text;             -- the file a part lives in; NULL for files
    ALTER TABLE documents ADD COLUMN part text NOT NULL DEFAULT '';
    ALTER TABLE documents ADD COLUMN part_label text NOT NULL DEFAULT '';  -- "message 3 · report.pdf"
    CREATE INDEX documents_container ON documents(container) WHERE container IS NOT NULL;
    CREATE TABLE ocr_pages (
        document_id bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        page integer NOT NULL,
        label text NOT NULL DEFAULT '',
        file_hash text NOT NULL,                   -- the file's content hash when the page was listed
        status text NOT NULL DEFAULT 'pending',    -- pending | done | failed
        text text,                                 -- what OCR read (done)
        confidence double precision,
        reason text,                               -- why OCR could not read it (failed)
        PRIMARY KEY (document_id, page)
    );
    CREATE INDEX ocr_pages_pending ON ocr_pages(document_id, page) WHERE status = 'pending';
    DELETE FROM meta WHERE key IN ('fts_tokenizer', 'fts_rebuilt_to');
    """)


@migration
def m006_permissions(conn: psycopg.Connection) -> None:
    """Who sees what: folders get an owner and a visibility, chats and messages an author, machine ids a role;
    row-level security on every table with document text or ids; DML only for trove_people (see permissions)."""
    create_schema(conn)


@migration
def m007_memory(conn: psycopg.Connection) -> None:
    """Conversation memory on the server: each person's facts, raw chat history, vectors and recall records, private
    to their person by FORCEd row-level security (see memory/schema.py)."""
    create_memory_schema(conn)


@migration
def m008_document_counts(conn: psycopg.Connection) -> None:
    """Counts kept by triggers, so the folder panel and `trove stats` read no document or chunk (as the embedded
    engine's migration 011): documents, failures and chunks per folder and type, chunks per folder and language,
    and the failed documents in an index of their own. Chunks with vectors are the chunks less those waiting
    (chunks_pending). The counts' rows follow their folder's visibility; the trigger functions run as the tables'
    owner, so a person's write keeps them right without being able to write them."""
    conn.execute("""
    CREATE TABLE doc_counts (
        folder_id bigint NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
        type text NOT NULL,
        documents bigint NOT NULL DEFAULT 0,       -- indexed
        failed bigint NOT NULL DEFAULT 0,
        chunks bigint NOT NULL DEFAULT 0,          -- the documents' chunk_count
        PRIMARY KEY (folder_id, type)
    );
    CREATE TABLE lang_counts (
        folder_id bigint NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
        lang text NOT NULL,
        chunks bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (folder_id, lang)
    );
    INSERT INTO doc_counts SELECT folder_id, type, count(*) FILTER (WHERE status = 'indexed'),
        count(*) FILTER (WHERE status = 'failed'), COALESCE(sum(chunk_count), 0) FROM documents GROUP BY 1, 2;
    INSERT INTO lang_counts SELECT folder_id, lang, count(*) FROM chunks GROUP BY 1, 2;
    CREATE INDEX documents_failed ON documents(path) WHERE status = 'failed';

    CREATE FUNCTION trove_count_document() RETURNS trigger LANGUAGE plpgsql
        SECURITY DEFINER SET search_path = public, pg_temp AS $$
    BEGIN
        IF TG_OP <> 'INSERT' THEN
            UPDATE doc_counts SET documents = documents - (OLD.status = 'indexed')::int,
                failed = failed - (OLD.status = 'failed')::int, chunks = chunks - OLD.chunk_count
                WHERE folder_id = OLD.folder_id AND type = OLD.type;
        END IF;
        IF TG_OP <> 'DELETE' THEN
            INSERT INTO doc_counts AS k VALUES (NEW.folder_id, NEW.type, (NEW.status = 'indexed')::int,
                (NEW.status = 'failed')::int, NEW.chunk_count)
            ON CONFLICT (folder_id, type) DO UPDATE SET documents = k.documents + EXCLUDED.documents,
                failed = k.failed + EXCLUDED.failed, chunks = k.chunks + EXCLUDED.chunks;
        END IF;
        RETURN NULL;
    END $$;
    CREATE TRIGGER documents_counted AFTER INSERT OR DELETE ON documents
        FOR EACH ROW EXECUTE FUNCTION trove_count_document();
    CREATE TRIGGER documents_recounted AFTER UPDATE OF folder_id, type, status, chunk_count ON documents
        FOR EACH ROW WHEN ((OLD.folder_id, OLD.type, OLD.status, OLD.chunk_count)
                           IS DISTINCT FROM (NEW.folder_id, NEW.type, NEW.status, NEW.chunk_count))
        EXECUTE FUNCTION trove_count_document();

    -- Chunks are written many to a statement: their languages are counted per statement (transition tables);
    -- an update (vectors stored, terms rebuilt, a document moved) changes only the languages it moved.
    CREATE FUNCTION trove_count_languages() RETURNS trigger LANGUAGE plpgsql
        SECURITY DEFINER SET search_path = public, pg_temp AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            INSERT INTO lang_counts AS k
                SELECT folder_id, lang, count(*) FROM new_chunks GROUP BY 1, 2 ORDER BY 1, 2
            ON CONFLICT (folder_id, lang) DO UPDATE SET chunks = k.chunks + EXCLUDED.chunks;
        ELSIF TG_OP = 'DELETE' THEN
            UPDATE lang_counts k SET chunks = k.chunks - o.n
                FROM (SELECT folder_id, lang, count(*) AS n FROM old_chunks GROUP BY 1, 2) o
                WHERE k.folder_id = o.folder_id AND k.lang = o.lang;
        ELSE
            INSERT INTO lang_counts AS k
                SELECT folder_id, lang, sum(n) FROM (SELECT folder_id, lang, 1 AS n FROM new_chunks
                    UNION ALL SELECT folder_id, lang, -1 FROM old_chunks) moved
                GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2
            ON CONFLICT (folder_id, lang) DO UPDATE SET chunks = k.chunks + EXCLUDED.chunks;
        END IF;
        RETURN NULL;
    END $$;
    CREATE TRIGGER chunks_counted AFTER INSERT ON chunks REFERENCING NEW TABLE AS new_chunks
        FOR EACH STATEMENT EXECUTE FUNCTION trove_count_languages();
    CREATE TRIGGER chunks_uncounted AFTER DELETE ON chunks REFERENCING OLD TABLE AS old_chunks
        FOR EACH STATEMENT EXECUTE FUNCTION trove_count_languages();
    CREATE TRIGGER chunks_recounted AFTER UPDATE ON chunks REFERENCING OLD TABLE AS old_chunks NEW TABLE AS new_chunks
        FOR EACH STATEMENT EXECUTE FUNCTION trove_count_languages();

    ALTER TABLE doc_counts ENABLE ROW LEVEL SECURITY;
    ALTER TABLE lang_counts ENABLE ROW LEVEL SECURITY;
    CREATE POLICY see ON doc_counts FOR SELECT USING (folder_id = ANY((SELECT trove_visible_folders())::bigint[]));
    CREATE POLICY see ON lang_counts FOR SELECT USING (folder_id = ANY((SELECT trove_visible_folders())::bigint[]));
    """)
    grant_counts(conn)

@migration
def m009_side_generations(conn: psycopg.Connection) -> None:
    """Per folder, a counter of keyword writes and one of vector writes, bumped by triggers in the writing
    transaction: a desktop's side indexes of the team library (postgres/side.py) are built at the counters of the
    folders it can see, and are stale when one of them moves or the set of folders it sees changes. The rows follow
    their folder's visibility, as the counts' do; the trigger function runs as the tables' owner."""
    conn.execute("""
    CREATE TABLE side_generations (
        folder_id bigint PRIMARY KEY REFERENCES folders(id) ON DELETE CASCADE,
        keywords bigint NOT NULL DEFAULT 0,        -- chunks written, deleted, moved, re-tokenised; titles, types
        vectors bigint NOT NULL DEFAULT 0          -- chunks given vectors, losing them, or deleted
    );
    INSERT INTO side_generations (folder_id) SELECT id FROM folders;

    CREATE FUNCTION trove_side_chunks() RETURNS trigger LANGUAGE plpgsql
        SECURITY DEFINER SET search_path = public, pg_temp AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            INSERT INTO side_generations AS g (folder_id, keywords)
                SELECT DISTINCT n.folder_id, 1 FROM new_chunks n JOIN folders f ON f.id = n.folder_id ORDER BY 1
            ON CONFLICT (folder_id) DO UPDATE SET keywords = g.keywords + 1;
        ELSIF TG_OP = 'DELETE' THEN
            INSERT INTO side_generations AS g (folder_id, keywords, vectors)
                SELECT DISTINCT o.folder_id, 1, 1 FROM old_chunks o
                JOIN folders f ON f.id = o.folder_id ORDER BY 1  -- not a folder being removed
            ON CONFLICT (folder_id) DO UPDATE SET keywords = g.keywords + 1, vectors = g.vectors + 1;
        ELSE
            INSERT INTO side_generations AS g (folder_id, keywords, vectors)
                SELECT f, bool_or(kw)::int, bool_or(vec)::int FROM (
                    SELECT x.f, (o.terms, o.folder_id, o.lang) IS DISTINCT FROM (n.terms, n.folder_id, n.lang) AS kw,
                           o.embedded IS DISTINCT FROM n.embedded AS vec
                    FROM new_chunks n JOIN old_chunks o ON o.id = n.id,
                         LATERAL (VALUES (n.folder_id), (o.folder_id)) AS x(f)) changed
                WHERE EXISTS (SELECT 1 FROM folders WHERE id = f)
                GROUP BY f HAVING bool_or(kw) OR bool_or(vec) ORDER BY 1
            ON CONFLICT (folder_id) DO UPDATE SET keywords = g.keywords + EXCLUDED.keywords,
                vectors = g.vectors + EXCLUDED.vectors;
        END IF;
        RETURN NULL;
    END $$;
    CREATE TRIGGER chunks_side_inserted AFTER INSERT ON chunks REFERENCING NEW TABLE AS new_chunks
        FOR EACH STATEMENT EXECUTE FUNCTION trove_side_chunks();
    CREATE TRIGGER chunks_side_deleted AFTER DELETE ON chunks REFERENCING OLD TABLE AS old_chunks
        FOR EACH STATEMENT EXECUTE FUNCTION trove_side_chunks();
    CREATE TRIGGER chunks_side_updated AFTER UPDATE ON chunks
        REFERENCING OLD TABLE AS old_chunks NEW TABLE AS new_chunks
        FOR EACH STATEMENT EXECUTE FUNCTION trove_side_chunks();

    -- A document's title, path and type are in its chunks' keyword rows (the title's tokens, the type filter).
    CREATE FUNCTION trove_side_document() RETURNS trigger LANGUAGE plpgsql
        SECURITY DEFINER SET search_path = public, pg_temp AS $$
    BEGIN
        INSERT INTO side_generations AS g (folder_id, keywords) VALUES (NEW.folder_id, 1)
        ON CONFLICT (folder_id) DO UPDATE SET keywords = g.keywords + 1;
        RETURN NULL;
    END $$;
    CREATE TRIGGER documents_side_changed AFTER UPDATE OF title, path, type ON documents
        FOR EACH ROW WHEN ((OLD.title, OLD.path, OLD.type) IS DISTINCT FROM (NEW.title, NEW.path, NEW.type))
        EXECUTE FUNCTION trove_side_document();

    ALTER TABLE side_generations ENABLE ROW LEVEL SECURITY;
    CREATE POLICY see ON side_generations FOR SELECT
        USING (folder_id = ANY((SELECT trove_visible_folders())::bigint[]));
    """)
    grant_counts(conn)


@migration
def m010_pinned_search_paths(conn: psycopg.Connection) -> None:
    """Every function a policy, a default or a trigger calls runs with `search_path = pg_catalog, public, pg_temp`
    and names its tables with their schema. The policies' helpers (006) ran with the caller's search_path, where
    pg_temp comes first: a person allowed temporary tables could shadow `folders` with their own and see every
    folder's rows. Replaced in place (same names and signatures: the policies and GRANTs that name them stay)."""
    conn.execute("""
    CREATE OR REPLACE FUNCTION trove_default_visibility() RETURNS text LANGUAGE sql STABLE
        SET search_path = pg_catalog, public, pg_temp AS
    $$ SELECT COALESCE((SELECT value FROM public.meta WHERE key = 'default_share'), 'team') $$;
    CREATE OR REPLACE FUNCTION trove_visible_folders() RETURNS bigint[] LANGUAGE sql STABLE
        SET search_path = pg_catalog, public, pg_temp AS
    $$ SELECT COALESCE(array_agg(id), '{}') FROM public.folders $$;
    CREATE OR REPLACE FUNCTION trove_my_folders() RETURNS bigint[] LANGUAGE sql STABLE
        SET search_path = pg_catalog, public, pg_temp AS
    $$ SELECT COALESCE(array_agg(id), '{}') FROM public.folders WHERE owner = current_user $$;
    CREATE OR REPLACE FUNCTION trove_my_machines() RETURNS text[] LANGUAGE sql STABLE
        SET search_path = pg_catalog, public, pg_temp AS
    $$ SELECT COALESCE(array_agg(machine_id), '{}') FROM public.machines WHERE role = current_user $$;

    CREATE OR REPLACE FUNCTION trove_chunk_folder() RETURNS trigger LANGUAGE plpgsql
        SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    BEGIN
        NEW.folder_id := (SELECT folder_id FROM public.documents WHERE id = NEW.document_id);
        RETURN NEW;
    END $$;
    CREATE OR REPLACE FUNCTION trove_vector_folder() RETURNS trigger LANGUAGE plpgsql
        SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    BEGIN
        NEW.folder_id := (SELECT folder_id FROM public.chunks WHERE id = NEW.chunk_id);
        RETURN NEW;
    END $$;
    CREATE OR REPLACE FUNCTION trove_document_moved() RETURNS trigger LANGUAGE plpgsql
        SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    BEGIN
        UPDATE public.chunks SET folder_id = NEW.folder_id WHERE document_id = NEW.id;
        UPDATE public.chunk_vectors SET folder_id = NEW.folder_id
            WHERE chunk_id IN (SELECT id FROM public.chunks WHERE document_id = NEW.id);
        RETURN NULL;
    END $$;

    CREATE OR REPLACE FUNCTION trove_count_document() RETURNS trigger LANGUAGE plpgsql
        SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    BEGIN
        IF TG_OP <> 'INSERT' THEN
            UPDATE public.doc_counts SET documents = documents - (OLD.status = 'indexed')::int,
                failed = failed - (OLD.status = 'failed')::int, chunks = chunks - OLD.chunk_count
                WHERE folder_id = OLD.folder_id AND type = OLD.type;
        END IF;
        IF TG_OP <> 'DELETE' THEN
            INSERT INTO public.doc_counts AS k VALUES (NEW.folder_id, NEW.type, (NEW.status = 'indexed')::int,
                (NEW.status = 'failed')::int, NEW.chunk_count)
            ON CONFLICT (folder_id, type) DO UPDATE SET documents = k.documents + EXCLUDED.documents,
                failed = k.failed + EXCLUDED.failed, chunks = k.chunks + EXCLUDED.chunks;
        END IF;
        RETURN NULL;
    END $$;
    CREATE OR REPLACE FUNCTION trove_count_languages() RETURNS trigger LANGUAGE plpgsql
        SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            INSERT INTO public.lang_counts AS k
                SELECT folder_id, lang, count(*) FROM new_chunks GROUP BY 1, 2 ORDER BY 1, 2
            ON CONFLICT (folder_id, lang) DO UPDATE SET chunks = k.chunks + EXCLUDED.chunks;
        ELSIF TG_OP = 'DELETE' THEN
            UPDATE public.lang_counts k SET chunks = k.chunks - o.n
                FROM (SELECT folder_id, lang, count(*) AS n FROM old_chunks GROUP BY 1, 2) o
                WHERE k.folder_id = o.folder_id AND k.lang = o.lang;
        ELSE
            INSERT INTO public.lang_counts AS k
                SELECT folder_id, lang, sum(n) FROM (SELECT folder_id, lang, 1 AS n FROM new_chunks
                    UNION ALL SELECT folder_id, lang, -1 FROM old_chunks) moved
                GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2
            ON CONFLICT (folder_id, lang) DO UPDATE SET chunks = k.chunks + EXCLUDED.chunks;
        END IF;
        RETURN NULL;
    END $$;

    CREATE OR REPLACE FUNCTION trove_side_chunks() RETURNS trigger LANGUAGE plpgsql
        SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            INSERT INTO public.side_generations AS g (folder_id, keywords)
                SELECT DISTINCT n.folder_id, 1 FROM new_chunks n JOIN public.folders f ON f.id = n.folder_id
                ORDER BY 1
            ON CONFLICT (folder_id) DO UPDATE SET keywords = g.keywords + 1;
        ELSIF TG_OP = 'DELETE' THEN
            INSERT INTO public.side_generations AS g (folder_id, keywords, vectors)
                SELECT DISTINCT o.folder_id, 1, 1 FROM old_chunks o
                JOIN public.folders f ON f.id = o.folder_id ORDER BY 1  -- not a folder being removed
            ON CONFLICT (folder_id) DO UPDATE SET keywords = g.keywords + 1, vectors = g.vectors + 1;
        ELSE
            INSERT INTO public.side_generations AS g (folder_id, keywords, vectors)
                SELECT f, bool_or(kw)::int, bool_or(vec)::int FROM (
                    SELECT x.f, (o.terms, o.folder_id, o.lang) IS DISTINCT FROM (n.terms, n.folder_id, n.lang) AS kw,
                           o.embedded IS DISTINCT FROM n.embedded AS vec
                    FROM new_chunks n JOIN old_chunks o ON o.id = n.id,
                         LATERAL (VALUES (n.folder_id), (o.folder_id)) AS x(f)) changed
                WHERE EXISTS (SELECT 1 FROM public.folders WHERE id = f)
                GROUP BY f HAVING bool_or(kw) OR bool_or(vec) ORDER BY 1
            ON CONFLICT (folder_id) DO UPDATE SET keywords = g.keywords + EXCLUDED.keywords,
                vectors = g.vectors + EXCLUDED.vectors;
        END IF;
        RETURN NULL;
    END $$;
    CREATE OR REPLACE FUNCTION trove_side_document() RETURNS trigger LANGUAGE plpgsql
        SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    BEGIN
        INSERT INTO public.side_generations AS g (folder_id, keywords) VALUES (NEW.folder_id, 1)
        ON CONFLICT (folder_id) DO UPDATE SET keywords = g.keywords + 1;
        RETURN NULL;
    END $$;

    -- Still the deleter's rights (their own memory rows), now with a path they cannot put a table in front of.
    CREATE OR REPLACE FUNCTION trove_chat_memory_delete() RETURNS trigger LANGUAGE plpgsql
        SET search_path = pg_catalog, public, pg_temp AS $$
    BEGIN
        UPDATE public.memory_facts SET superseded_by = NULL
            WHERE superseded_by IN (SELECT id FROM public.memory_facts WHERE chat_id = OLD.id);
        DELETE FROM public.memory_facts WHERE chat_id = OLD.id;
        DELETE FROM public.memory_recalls WHERE chat_id = OLD.id;
        DELETE FROM public.memory_chunks WHERE chat_id = OLD.id;
        RETURN NULL;
    END $$;
    """)


@migration
def m011_people_not_groups_private_chats(conn: psycopg.Connection) -> None:
    """Rows are written and read by a person or by the administrator, never by a group acting as itself: a
    restrictive policy on every table with row-level security refuses trove_people and the libraries' groups
    (memberships are also made without SET, roles.py). Chats and messages are their author's alone, the
    administrator's desktop included: their row-level security is FORCEd, as memory's is (only a superuser,
    with a session over the server's private socket, reads another person's chat)."""
    for table in ("meta", "machines", "folders", "folder_watchers", "folder_leases", "documents", "chunks",
                  "chunk_vectors", "ocr_pages", "chats", "messages", "doc_counts", "lang_counts", "side_generations",
                  "memory_settings", "memory_facts", "memory_chunks", "memory_vectors", "memory_recalls"):
        conn.execute(sql.SQL(
            "CREATE POLICY not_a_group ON {} AS RESTRICTIVE FOR ALL "
            "USING (current_user::text <> 'trove_people' AND NOT starts_with(current_user::text, 'trove_l_')) "
            "WITH CHECK (current_user::text <> 'trove_people' AND NOT starts_with(current_user::text, 'trove_l_'))"
        ).format(sql.Identifier(table)))
    conn.execute("ALTER TABLE chats FORCE ROW LEVEL SECURITY")
    conn.execute("ALTER TABLE messages FORCE ROW LEVEL SECURITY")


@migration
def m012_memory_forgot_through(conn: psycopg.Connection) -> None:
    """A person's forget-all watermark: the id of the newest chat message when they last forgot all of memory, so
    turns from before it are never saved into memory again (the embedded engine keeps it in meta). Row-level
    security and the people's GRANTs on memory_settings cover the new column."""
    conn.execute("ALTER TABLE memory_settings ADD COLUMN forgot_through bigint NOT NULL DEFAULT 0")


@migration
def m013_plain_meta_values(conn: psycopg.Connection) -> None:
    """Shared notices are data: every desktop, any person's, writes `embed_error` / `ocr_error` into meta, and
    every colleague's `trove stats` and window show them, so a meta value is at most 4000 characters and holds no
    control character but tab and newline: no C0 (ESC, so no ANSI sequence), DEL or C1 (CSI is \\x9b). A CHECK
    constraint (no function, so no search_path to pin); the values a library already has are made plain first
    (each control becomes ?). Desktops write plain values (connect.plain_notice), so only a hand-made UPDATE fails.
    The pattern and bound are literals here, not module constants: a released migration never changes."""
    pattern = r"[\x01-\x08\x0b-\x1f\x7f-\x9f]"
    conn.execute(sql.SQL("UPDATE meta SET value = left(regexp_replace(value, {p}, '?', 'g'), 4000) "
                         "WHERE value ~ {p} OR char_length(value) > 4000").format(p=sql.Literal(pattern)))
    conn.execute(sql.SQL("ALTER TABLE meta ADD CONSTRAINT meta_value_plain "
                         "CHECK (char_length(value) <= 4000 AND value !~ {p})").format(p=sql.Literal(pattern)))


@migration
def m014_document_dates_and_tags(conn: psycopg.Connection) -> None:
    """A document's own date (from its metadata or first lines; NULL: its modified time counts) and its tags
    (case-folded, from front matter, #tags and office keywords), written at index time for the query language's
    after:/before:/date:/tag: filters. Columns of documents, so row-level security and the GRANTs cover them."""
    conn.execute("ALTER TABLE documents ADD COLUMN doc_date date, ADD COLUMN tags text[]")
    conn.execute("CREATE INDEX documents_doc_date ON documents (doc_date) WHERE doc_date IS NOT NULL")
    conn.execute("CREATE INDEX documents_tags ON documents USING gin (tags) WHERE tags IS NOT NULL")


@migration
def m015_documents_not_read(conn: psycopg.Connection) -> None:
    """Files seen and never read (hidden, of a type Trove does not read) are document rows with status 'not_read'
    and their reason, for the ledger; this index holds only them, so `trove stats` counts them without a scan.
    Rows of documents, so row-level security and the GRANTs cover them."""
    conn.execute("CREATE INDEX documents_not_read ON documents (path) WHERE status = 'not_read'")


@migration
def m016_ocr_words(conn: psycopg.Connection) -> None:
    """The words OCR read on a page with their boxes (JSON text, core/ocr/words.py), kept with its text, so the
    viewer highlights a passage on a scanned page. A column of ocr_pages: its row-level security and GRANTs cover it.
    Pages read before this stay without (no highlight until re-read)."""
    conn.execute("ALTER TABLE ocr_pages ADD COLUMN words text")



@migration
def m017_wikilinks(conn: psycopg.Connection) -> None:
    """A Markdown note's [[wikilinks]] (JSON text, core/store/link_rows.py), written at index time so a result can
    follow them. A column of documents: row-level security shows a person the links of the documents they may
    read, and the GRANTs cover it."""
    conn.execute("ALTER TABLE documents ADD COLUMN links text")

Migration = Callable[[psycopg.Connection], None]
MIGRATIONS: list[tuple[int, str, Migration]] = migration.entries
SCHEMA_VERSION = MIGRATIONS[-1][0]


def migrate(conn: psycopg.Connection, url: str) -> dict[str, bool]:
    """Bring the schema up to date (refusing a newer one); returns the optional features the server has.

    A person (a member of trove_people) never runs DDL: a current schema is used as it is, an older one is the
    administrator's to upgrade."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        person = is_person(conn)
        if not person:
            conn.execute("CREATE TABLE IF NOT EXISTS trove_migrations "
                         "(id integer PRIMARY KEY, name text NOT NULL, applied_at double precision NOT NULL)")
        done = _applied(conn)
        unknown = sorted(done - {mid for mid, _, _ in MIGRATIONS})
        if unknown:
            raise SchemaTooNewError(
                f"This library was written by a newer version of Trove (schema {max(unknown)}; "
                f"this version knows up to {SCHEMA_VERSION}). Update Trove to open it; nothing was changed.")
        pending = [m for m in MIGRATIONS if m[0] not in done]
        if pending and person:
            raise KnownError(f"This team library needs its administrator to upgrade it to schema {SCHEMA_VERSION} "
                             "(trove server migrate, or open it once with the admin URL); nothing was changed.")
        for mid, name, func in pending:
            _apply(conn, url, mid, name, func)
        if not person and people_lack_grants(conn):
            grant_people(conn)  # trove_people was made after the schema: give it its DML now
        if not person and pending:
            no_sequence_reads(conn)  # 007's GRANT gave SELECT on the sequences too
    return features(conn)


def _applied(conn: psycopg.Connection) -> set[int]:
    """The ids of the migrations this database has (none when it has no record table)."""
    if conn.execute("SELECT to_regclass('trove_migrations')").fetchone()[0] is None:  # type: ignore[index]
        return set()
    return {r[0] for r in conn.execute("SELECT id FROM trove_migrations")}


def _apply(conn: psycopg.Connection, url: str, mid: int, name: str, func: Migration) -> None:
    try:
        with conn.transaction():
            func(conn)
            conn.execute("INSERT INTO trove_migrations (id, name, applied_at) VALUES (%s, %s, %s)",
                         (mid, name, time.time()))
    except psycopg.Error as exc:
        if mid == 2 and pgc.is_missing_extension(exc):
            raise pgc.missing_vector(url) from None
        raise
    log.info("applied server migration %03d_%s", mid, name)


def features(conn: psycopg.Connection) -> dict[str, bool]:
    """Which optional extensions this database has."""
    names = {r[0] for r in conn.execute("SELECT extname FROM pg_extension")}
    return {"trgm": "pg_trgm" in names}
