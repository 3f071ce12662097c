"""Who sees what on a team library: the row-level security schema (migration 006's DDL), the people's GRANTs,
and the small helpers the engine uses to know whether it is a person or the administrator.

PostgreSQL decides, not Trove: every table that holds document text or ids has ROW LEVEL SECURITY with policies
keyed on `current_user` (the person's login role, `trove_p_<name>`). A folder has an owner and a visibility —
`private` (its owner), `team` (everyone), or `people` (its owner and the roles listed in `folders.people`);
documents, chunks, vectors and OCR pages follow their folder; chats and messages are their author's. Only the
owner of a folder (from one of their own machines) writes anything in it.

RLS is ENABLEd but not FORCEd on the library's tables: the role that owns them (trove_owner, and `trove`, the
administrator, which is a member of it) bypasses the policies, as it could drop the tables anyway. Chats, messages
(migration 011) and memory (007) are FORCEd: the administrator's desktop sees only its own. People get DML only
(trove_people, through their library's group, roles.py), USAGE without SELECT on the sequences; a restrictive
policy (011) refuses a session acting as a group. The policies' helpers pin their search_path (migration 010).

Policies are cheap: chunks and chunk_vectors carry their document's folder_id (kept by triggers), and the policy
compares it with the visible folder ids, computed once per query by `trove_visible_folders()` (an InitPlan), so a
search under RLS filters rows by an array lookup instead of joining documents and folders.
"""

from __future__ import annotations

import psycopg
from psycopg import sql

from desktop_app.core.log import get_logger
from desktop_app.core.store.postgres.connect import existing_tables
from desktop_app.core.store.rows import PERSON_PREFIX, Share

log = get_logger("db")

PEOPLE_GROUP = "trove_people"  # the contract with roles.py (H5): the group every person's role is in
# Library-wide values only the administrator may change (a person's desktop reads them).
PROTECTED_META = ("embed_model", "embed_dim", "fts_tokenizer", "fts_rebuilt_to", "default_share")
FIRST_WRITER_META = ("embed_model", "embed_dim")  # ... except these, which the first desktop to embed records

# Tables people may read and change (rows filtered by policies), and those they may only read.
DML_TABLES = ("meta", "machines", "folders", "folder_watchers", "folder_leases", "documents", "chunks",
              "chunk_vectors", "ocr_pages", "chats", "messages")
READ_TABLES = ("trove_migrations",)
COUNT_TABLES = ("doc_counts", "lang_counts", "side_generations")  # read by people, written by triggers (008, 009)
RLS_TABLES = DML_TABLES  # meta too: everyone reads it, only the administrator writes its library-wide keys
FUNCTIONS = ("trove_default_visibility()", "trove_visible_folders()", "trove_my_folders()", "trove_my_machines()")


def share_of(visibility: str, people: list[str] | tuple[str, ...] | None) -> Share:
    """A folder row's visibility columns as a Share (role names back to people's names)."""
    if visibility != "people":
        return Share(visibility)
    return Share("people", tuple(sorted(p.removeprefix(PERSON_PREFIX) for p in people or ())))


def display_name(role: str) -> str:
    """A person's name from their role (the administrator's role is shown as it is)."""
    return role.removeprefix(PERSON_PREFIX)


def is_person(conn: psycopg.Connection) -> bool:
    """Whether this connection's role is a person (a member of trove_people), not the administrator."""
    row = conn.execute("SELECT EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = %s "
                       "AND pg_has_role(current_user, r.oid, 'MEMBER'))", (PEOPLE_GROUP,)).fetchone()
    return bool(row and row[0])


def grant_people(conn: psycopg.Connection) -> bool:
    """GRANT people DML on the library's tables (and nothing else); skipped with a log line when the
    trove_people role does not exist yet. Idempotent: `trove server` may call it after creating the role."""
    if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (PEOPLE_GROUP,)).fetchone() is None:
        log.info("no %s role on this server yet: people's GRANTs are made when it exists", PEOPLE_GROUP)
        return False
    group = sql.Identifier(PEOPLE_GROUP)
    for table in DML_TABLES:
        conn.execute(sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(sql.Identifier(table), group))
    for table in READ_TABLES:
        conn.execute(sql.SQL("GRANT SELECT ON {} TO {}").format(sql.Identifier(table), group))
    conn.execute(sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(group))
    conn.execute(sql.SQL("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {}").format(group))
    for function in FUNCTIONS:
        conn.execute(sql.SQL("GRANT EXECUTE ON FUNCTION " + function + " TO {}").format(group))
    from desktop_app.core.store.postgres.memory.schema import grant_memory  # migration 007's tables, if made

    grant_memory(conn)
    grant_counts(conn)
    no_sequence_reads(conn)
    return True


def no_sequence_reads(conn: psycopg.Connection) -> None:
    """People draw ids from the sequences (USAGE) but do not read them: a sequence's last_value would tell everyone
    how many chats, memories or documents the others made."""
    if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (PEOPLE_GROUP,)).fetchone() is not None:
        conn.execute(sql.SQL("REVOKE SELECT ON ALL SEQUENCES IN SCHEMA public FROM {}").format(
            sql.Identifier(PEOPLE_GROUP)))


def grant_counts(conn: psycopg.Connection) -> None:
    """GRANT people SELECT on the kept counts (migration 008's tables), when both exist; their triggers write them."""
    if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (PEOPLE_GROUP,)).fetchone() is None:
        return
    for table in existing_tables(conn, COUNT_TABLES):  # none before migration 008
        conn.execute(sql.SQL("GRANT SELECT ON {} TO {}").format(sql.Identifier(table), sql.Identifier(PEOPLE_GROUP)))


def people_lack_grants(conn: psycopg.Connection) -> bool:
    """Whether trove_people exists but misses a privilege migration 006 gives it (made after the migration)."""
    if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (PEOPLE_GROUP,)).fetchone() is None:
        return False
    from desktop_app.core.store.postgres.memory.schema import existing_memory_tables

    wanted = [(f"public.{t}", "SELECT,INSERT,UPDATE,DELETE") for t in (*DML_TABLES, *existing_memory_tables(conn))]
    wanted += [(f"public.{t}", "SELECT") for t in existing_tables(conn, COUNT_TABLES)]
    row = conn.execute("SELECT bool_and(has_table_privilege(%s, t, p)) FROM unnest(%s::text[], %s::text[]) AS u(t, p)",
                       (PEOPLE_GROUP, [t for t, _ in wanted], [p for _, p in wanted])).fetchone()
    return not (row and row[0])


SCHEMA = """
CREATE TABLE machines (                       -- each machine id belongs to the role that first used it
    machine_id text PRIMARY KEY,
    role text NOT NULL DEFAULT current_user,
    added_at double precision NOT NULL DEFAULT extract(epoch FROM clock_timestamp())
);
INSERT INTO machines (machine_id)
    SELECT machine_id FROM folders UNION SELECT machine_id FROM folder_watchers
    UNION SELECT machine_id FROM folder_leases;

CREATE FUNCTION trove_default_visibility() RETURNS text LANGUAGE sql STABLE AS
$$ SELECT COALESCE((SELECT value FROM meta WHERE key = 'default_share'), 'team') $$;

ALTER TABLE folders ADD COLUMN owner text NOT NULL DEFAULT current_user;
ALTER TABLE folders ADD COLUMN visibility text NOT NULL DEFAULT 'team'
    CHECK (visibility IN ('private', 'team', 'people'));
ALTER TABLE folders ALTER COLUMN visibility SET DEFAULT trove_default_visibility();
ALTER TABLE folders ADD COLUMN people text[] NOT NULL DEFAULT '{}';
CREATE INDEX folders_owner ON folders(owner);

ALTER TABLE chunks ADD COLUMN folder_id bigint;
UPDATE chunks c SET folder_id = d.folder_id FROM documents d WHERE d.id = c.document_id;
ALTER TABLE chunks ALTER COLUMN folder_id SET NOT NULL;
CREATE INDEX chunks_folder ON chunks(folder_id);
ALTER TABLE chunk_vectors ADD COLUMN folder_id bigint;
UPDATE chunk_vectors v SET folder_id = c.folder_id FROM chunks c WHERE c.id = v.chunk_id;
ALTER TABLE chunk_vectors ALTER COLUMN folder_id SET NOT NULL;
CREATE INDEX chunk_vectors_folder ON chunk_vectors(folder_id);

ALTER TABLE chats ADD COLUMN owner text NOT NULL DEFAULT current_user;
ALTER TABLE messages ADD COLUMN owner text NOT NULL DEFAULT current_user;
CREATE INDEX chats_owner ON chats(owner, updated_at);

-- A chunk is in its document's folder, a vector in its chunk's: set on insert, followed when a document moves.
-- The owner's rights (no RLS) make the lookup one index probe; the policies' WITH CHECK still judge the row.
CREATE FUNCTION trove_chunk_folder() RETURNS trigger LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    NEW.folder_id := (SELECT folder_id FROM documents WHERE id = NEW.document_id);
    RETURN NEW;
END $$;
CREATE TRIGGER chunks_folder BEFORE INSERT OR UPDATE OF document_id ON chunks
    FOR EACH ROW EXECUTE FUNCTION trove_chunk_folder();
CREATE FUNCTION trove_vector_folder() RETURNS trigger LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    NEW.folder_id := (SELECT folder_id FROM chunks WHERE id = NEW.chunk_id);
    RETURN NEW;
END $$;
CREATE TRIGGER chunk_vectors_folder BEFORE INSERT OR UPDATE OF chunk_id ON chunk_vectors
    FOR EACH ROW EXECUTE FUNCTION trove_vector_folder();
CREATE FUNCTION trove_document_moved() RETURNS trigger LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    UPDATE chunks SET folder_id = NEW.folder_id WHERE document_id = NEW.id;
    UPDATE chunk_vectors SET folder_id = NEW.folder_id
        WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = NEW.id);
    RETURN NULL;
END $$;
CREATE TRIGGER documents_folder AFTER UPDATE OF folder_id ON documents
    FOR EACH ROW WHEN (OLD.folder_id IS DISTINCT FROM NEW.folder_id) EXECUTE FUNCTION trove_document_moved();

-- The folders this role sees (folders' own policy applies: invoker's rights) and those it owns; machines it has.
CREATE FUNCTION trove_visible_folders() RETURNS bigint[] LANGUAGE sql STABLE AS
$$ SELECT COALESCE(array_agg(id), '{}') FROM folders $$;
CREATE FUNCTION trove_my_folders() RETURNS bigint[] LANGUAGE sql STABLE AS
$$ SELECT COALESCE(array_agg(id), '{}') FROM folders WHERE owner = current_user $$;
CREATE FUNCTION trove_my_machines() RETURNS text[] LANGUAGE sql STABLE AS
$$ SELECT COALESCE(array_agg(machine_id), '{}') FROM machines WHERE role = current_user $$;

CREATE POLICY see ON folders FOR SELECT
    USING (owner = current_user OR visibility = 'team' OR current_user = ANY(people));
CREATE POLICY add ON folders FOR INSERT
    WITH CHECK (owner = current_user AND machine_id = ANY((SELECT trove_my_machines())::text[]));
CREATE POLICY change ON folders FOR UPDATE USING (owner = current_user) WITH CHECK (owner = current_user);
CREATE POLICY remove ON folders FOR DELETE USING (owner = current_user);

CREATE POLICY see ON machines FOR SELECT USING (true);
CREATE POLICY mine ON machines FOR INSERT WITH CHECK (role = current_user);
CREATE POLICY change ON machines FOR UPDATE USING (role = current_user) WITH CHECK (role = current_user);
CREATE POLICY remove ON machines FOR DELETE USING (role = current_user);

CREATE POLICY see ON meta FOR SELECT USING (true);
CREATE POLICY add ON meta FOR INSERT WITH CHECK (key <> ALL (%(protected_insert)s));
CREATE POLICY change ON meta FOR UPDATE USING (key <> ALL (%(protected)s)) WITH CHECK (key <> ALL (%(protected)s));
CREATE POLICY remove ON meta FOR DELETE USING (key <> ALL (%(protected)s));
"""

# Watchers and leases: seen with their folder, written only for one's own machines and folders.
_MACHINE_ROWS = """
CREATE POLICY see ON {t} FOR SELECT USING (folder_id = ANY((SELECT trove_visible_folders())::bigint[]));
CREATE POLICY add ON {t} FOR INSERT WITH CHECK (machine_id = ANY((SELECT trove_my_machines())::text[])
    AND folder_id = ANY((SELECT trove_my_folders())::bigint[]));
CREATE POLICY change ON {t} FOR UPDATE USING (folder_id = ANY((SELECT trove_my_folders())::bigint[]))
    WITH CHECK (machine_id = ANY((SELECT trove_my_machines())::text[])
        AND folder_id = ANY((SELECT trove_my_folders())::bigint[]));
CREATE POLICY remove ON {t} FOR DELETE USING (machine_id = ANY((SELECT trove_my_machines())::text[]));
"""

# Documents, chunks, vectors: seen with their folder, written only in one's own folders.
_FOLDER_ROWS = """
CREATE POLICY see ON {t} FOR SELECT USING (folder_id = ANY((SELECT trove_visible_folders())::bigint[]));
CREATE POLICY add ON {t} FOR INSERT WITH CHECK (folder_id = ANY((SELECT trove_my_folders())::bigint[]));
CREATE POLICY change ON {t} FOR UPDATE USING (folder_id = ANY((SELECT trove_my_folders())::bigint[]))
    WITH CHECK (folder_id = ANY((SELECT trove_my_folders())::bigint[]));
CREATE POLICY remove ON {t} FOR DELETE USING (folder_id = ANY((SELECT trove_my_folders())::bigint[]));
"""

_OCR = """
CREATE POLICY see ON ocr_pages FOR SELECT USING (document_id IN (SELECT id FROM documents));
CREATE POLICY write ON ocr_pages FOR ALL
    USING (document_id IN (SELECT id FROM documents WHERE folder_id = ANY((SELECT trove_my_folders())::bigint[])))
    WITH CHECK (document_id IN (SELECT id FROM documents WHERE folder_id = ANY((SELECT trove_my_folders())::bigint[])));
"""

_CHATS = """
CREATE POLICY author ON chats FOR ALL USING (owner = current_user) WITH CHECK (owner = current_user);
CREATE POLICY author ON messages FOR ALL USING (owner = current_user)
    WITH CHECK (owner = current_user AND chat_id IN (SELECT id FROM chats));
"""


def create_schema(conn: psycopg.Connection) -> None:
    """Migration 006: owners, visibility, machines bound to roles, the policies, and the people's GRANTs."""
    def array(keys: tuple[str, ...]) -> str:
        return "ARRAY[" + ", ".join(f"'{k}'" for k in keys) + "]"
    insert = tuple(k for k in PROTECTED_META if k not in FIRST_WRITER_META)
    conn.execute(SCHEMA.replace("%(protected_insert)s", array(insert)).replace("%(protected)s", array(PROTECTED_META)))
    for table in ("folder_watchers", "folder_leases"):
        conn.execute(_MACHINE_ROWS.format(t=table))
    for table in ("documents", "chunks", "chunk_vectors"):
        conn.execute(_FOLDER_ROWS.format(t=table))
    conn.execute(_OCR)
    conn.execute(_CHATS)
    for table in RLS_TABLES:
        conn.execute(sql.SQL("ALTER TABLE {} ENABLE ROW LEVEL SECURITY").format(sql.Identifier(table)))
    try:
        with conn.transaction():  # PostgreSQL < 15 lets everyone create tables in public; not in a library
            conn.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
    except psycopg.Error as exc:
        log.info("could not revoke CREATE on schema public (%s): the server's default applies", type(exc).__name__)
    grant_people(conn)
