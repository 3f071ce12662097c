"""Conversation memory on a team library (migration 007's DDL): each person's facts, raw chat history, its window
vectors, recall records and memory switch, in tables PostgreSQL keeps private to their person.

Every row carries `owner` (the role that wrote it, `current_user` by default) and every table has FORCEd
row-level security with one policy, `owner = current_user`, for reading and for writing: a person, and even the
administrator's desktop (the tables' owner, which FORCE subjects to the policy as well), reads, changes and
deletes only their own memory, whatever SQL they send. A vector or recall row must also point at one of the
writer's own chunks. Only a superuser bypasses this, as it bypasses every policy.

Keyword rows are tsvectors of core/text's tokens (keywords.chunk_terms, as for documents), so Thai, Arabic and
English memory match as they do in the embedded engine. Vectors are pgvector columns without a fixed size (a
person's memory is small: searched exactly, no HNSW), recorded per person with the model that made them.
"""

from __future__ import annotations

import psycopg
from psycopg import sql

from desktop_app.core.store.postgres.access.roles import PEOPLE_GROUP
from desktop_app.core.store.postgres.connect import existing_tables

MEMORY_TABLES = ("memory_settings", "memory_facts", "memory_chunks", "memory_vectors", "memory_recalls")

SCHEMA = """
CREATE TABLE memory_settings (
    owner text PRIMARY KEY DEFAULT current_user,
    enabled boolean NOT NULL DEFAULT true,
    embed_model text                                 -- "model:dim" of this person's memory vectors
);
CREATE TABLE memory_facts (
    id bigserial PRIMARY KEY,
    owner text NOT NULL DEFAULT current_user,
    key text NOT NULL,
    value text NOT NULL,
    category text NOT NULL DEFAULT '',
    source text NOT NULL,
    confidence double precision NOT NULL,
    created_at double precision NOT NULL,
    updated_at double precision NOT NULL,
    expires_at double precision,
    superseded_by bigint,
    merged_keys jsonb NOT NULL DEFAULT '[]',
    chat_id bigint,
    turn integer,
    terms tsvector NOT NULL,
    embedding bytea                                  -- float32 vector of "key: value"
);
CREATE INDEX memory_facts_owner ON memory_facts(owner, updated_at);
CREATE INDEX memory_facts_terms ON memory_facts USING gin (terms);
CREATE TABLE memory_chunks (
    id bigserial PRIMARY KEY,
    owner text NOT NULL DEFAULT current_user,
    chat_id bigint NOT NULL,
    chat_title text NOT NULL DEFAULT '',
    first_turn integer NOT NULL,
    last_turn integer NOT NULL,
    text text NOT NULL,
    text_hash text NOT NULL,
    breadcrumbs jsonb NOT NULL DEFAULT '[]',
    lang text NOT NULL DEFAULT '',
    created_at double precision NOT NULL,
    embedded boolean NOT NULL DEFAULT false,
    terms tsvector NOT NULL,
    UNIQUE (owner, chat_id, text_hash)
);
CREATE INDEX memory_chunks_chat ON memory_chunks(owner, chat_id, last_turn);
CREATE INDEX memory_chunks_pending ON memory_chunks(owner, id) WHERE NOT embedded;
CREATE INDEX memory_chunks_terms ON memory_chunks USING gin (terms);
CREATE TABLE memory_vectors (
    chunk_id bigint NOT NULL REFERENCES memory_chunks(id) ON DELETE CASCADE,
    "window" smallint NOT NULL,
    owner text NOT NULL DEFAULT current_user,
    embedding vector NOT NULL,
    PRIMARY KEY (chunk_id, "window")
);
CREATE INDEX memory_vectors_owner ON memory_vectors(owner);
CREATE TABLE memory_recalls (
    chat_id bigint NOT NULL,
    chunk_id bigint NOT NULL REFERENCES memory_chunks(id) ON DELETE CASCADE,
    owner text NOT NULL DEFAULT current_user,
    recalled_at double precision NOT NULL,
    PRIMARY KEY (chat_id, chunk_id)
);

-- Deleting a chat deletes what it left in memory (the deleter's rows: the function runs with their rights).
CREATE FUNCTION trove_chat_memory_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE memory_facts SET superseded_by = NULL
        WHERE superseded_by IN (SELECT id FROM memory_facts WHERE chat_id = OLD.id);
    DELETE FROM memory_facts WHERE chat_id = OLD.id;
    DELETE FROM memory_recalls WHERE chat_id = OLD.id;
    DELETE FROM memory_chunks WHERE chat_id = OLD.id;
    RETURN NULL;
END $$;
CREATE TRIGGER chats_memory_delete AFTER DELETE ON chats FOR EACH ROW EXECUTE FUNCTION trove_chat_memory_delete();

CREATE POLICY mine ON memory_settings FOR ALL USING (owner = current_user) WITH CHECK (owner = current_user);
CREATE POLICY mine ON memory_facts FOR ALL USING (owner = current_user) WITH CHECK (owner = current_user);
CREATE POLICY mine ON memory_chunks FOR ALL USING (owner = current_user) WITH CHECK (owner = current_user);
CREATE POLICY mine ON memory_vectors FOR ALL USING (owner = current_user)
    WITH CHECK (owner = current_user AND chunk_id IN (SELECT id FROM memory_chunks));
CREATE POLICY mine ON memory_recalls FOR ALL USING (owner = current_user)
    WITH CHECK (owner = current_user AND chunk_id IN (SELECT id FROM memory_chunks));
"""


def create_memory_schema(conn: psycopg.Connection) -> None:
    """Migration 007: the memory tables, their policies (ENABLEd and FORCEd), and the people's GRANTs."""
    conn.execute(SCHEMA)
    for table in MEMORY_TABLES:
        name = sql.Identifier(table)
        conn.execute(sql.SQL("ALTER TABLE {} ENABLE ROW LEVEL SECURITY").format(name))
        conn.execute(sql.SQL("ALTER TABLE {} FORCE ROW LEVEL SECURITY").format(name))
    grant_memory(conn)


def grant_memory(conn: psycopg.Connection) -> None:
    """GRANT people DML on the memory tables that exist (none before migration 007) when trove_people exists."""
    if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (PEOPLE_GROUP,)).fetchone() is None:
        return
    group = sql.Identifier(PEOPLE_GROUP)
    for table in existing_memory_tables(conn):
        conn.execute(sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(sql.Identifier(table), group))
    conn.execute(sql.SQL("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {}").format(group))


def existing_memory_tables(conn: psycopg.Connection) -> list[str]:
    """The memory tables this database has."""
    return existing_tables(conn, MEMORY_TABLES)
