"""Who sees what, proven in SQL: person B with psql and the URL still reads, changes and drops none of A's rows.

Alice and Bob are login roles in trove_people (tests/support/people.py); the administrator is the
`trove` role the other tests use. PostgreSQL's row-level security decides, so these checks use raw psycopg
connections as well as the store.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import psycopg
import pytest
from psycopg import sql

from desktop_app.core.errors import KnownError
from desktop_app.core.ingest.chunking import Span
from desktop_app.core.store.postgres import PostgresStore
from desktop_app.core.store.rows import DocumentMove, MessageRow, NewChunk, NewDocument, OcrPageRef, Share
from tests.support.people import connect, person_url

SECRET = "zanzibar"  # a word only Alice's private folder holds
DIM = 8
# Tables that hold no document text or ids, readable by everyone: meta's library-wide values, the schema record,
# and which role each machine id belongs to. Only the schema record has no row-level security (people only read it).
OPEN_TABLES = {"meta", "trove_migrations", "machines"}


@pytest.fixture
def people(pg_server, pg_url):
    """(admin URL, Alice's URL, Bob's URL) of one library; the admin opened it first (migrations, GRANTs)."""
    urls = {name: person_url(pg_server, pg_url, name) for name in ("alice", "bob")}
    admin = PostgresStore(pg_url, machine="server-desk")
    admin.ensure_embedding_model("test-model", DIM)
    admin.close()
    return pg_url, urls["alice"], urls["bob"]


def write(store: PostgresStore, folder, name: str, text: str, *, ocr: bool = False) -> int:
    path = Path(folder.path) / name
    vec = np.ones((1, DIM), np.float32) / np.sqrt(DIM)
    pages = [OcrPageRef(2, "2")] if ocr else []
    return store.write_document(NewDocument(folder_id=folder.id, path=str(path), title=path.stem,
                                            type="pdf" if ocr else "txt", size=len(text), mtime_ns=1,
                                            digest=f"h-{name}", pages=2 if ocr else None),
                                [NewChunk(Span(0, len(text), text), None, vectors=vec)], ocr_pages=pages)


@pytest.fixture
def alice_private(people, tmp_path):
    """Alice's private folder with a document (chunk, vector, an OCR page) and a chat; its ids by table."""
    _, alice_url, _ = people
    alice = PostgresStore(alice_url, machine="desk-alice")
    folder = alice.add_folder(str(tmp_path / "alice-private"), Share("private"))
    doc_id = write(alice, folder, "plan.pdf", f"the {SECRET} merger plan", ocr=True)
    chat = alice.create_chat(f"about {SECRET}", 1.0)
    alice.add_messages(chat, [MessageRow(0, chat, "user", f"what about {SECRET}?", (), (), 1.0)], "t", 1.0)
    alice.claim_folder(folder.id)
    yield alice, folder, doc_id, chat
    alice.close()


def tables(conn: psycopg.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")]


def test_every_table_with_document_data_has_row_level_security(people):
    admin_url, _, _ = people
    with connect(admin_url) as conn:
        rls = dict(conn.execute("SELECT relname, relrowsecurity FROM pg_class c JOIN pg_namespace n "
                                "ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'").fetchall())
    assert {t for t, on in rls.items() if not on} == {"trove_migrations"}
    for table in ("folders", "documents", "chunks", "chunk_vectors", "ocr_pages", "chats", "messages",
                  "folder_watchers", "folder_leases", "machines", "meta"):
        assert rls[table] is True


def test_bob_reads_none_of_alices_private_rows_in_any_table(people, alice_private):
    admin_url, _, bob_url = people
    alice, folder, doc_id, chat = alice_private
    with connect(admin_url) as admin:  # the administrator sees them: they are there
        assert admin.execute("SELECT count(*) FROM chunks WHERE folder_id = %s", (folder.id,)).fetchone()[0] == 1
        assert admin.execute("SELECT count(*) FROM ocr_pages").fetchone()[0] == 1
        admin.execute("ANALYZE chunks")  # column statistics (most common terms) exist now, for the owner's eyes
        assert admin.execute("SELECT count(*) FROM pg_stats WHERE tablename = 'chunks'").fetchone()[0] > 0
    with connect(bob_url) as bob:
        names = tables(bob)
        assert {"folders", "documents", "chunks", "chunk_vectors", "ocr_pages", "chats", "messages"} <= set(names)
        for table in names:
            rows = bob.execute(sql.SQL("SELECT * FROM {}").format(sql.Identifier(table))).fetchall()
            assert SECRET not in repr(rows), table
            if table not in OPEN_TABLES:
                assert rows == [], table
        assert bob.execute("SELECT count(*) FROM chunks WHERE text LIKE %s", (f"%{SECRET}%",)).fetchone()[0] == 0
        assert bob.execute("SELECT * FROM documents WHERE id = %s", (doc_id,)).fetchall() == []
        assert bob.execute("SELECT * FROM messages WHERE chat_id = %s", (chat,)).fetchall() == []
        assert bob.execute("SELECT * FROM pg_stats WHERE tablename = 'chunks'").fetchall() == []


def test_bob_changes_and_deletes_nothing_of_alices(people, alice_private, tmp_path):
    admin_url, _, bob_url = people
    alice, folder, doc_id, chat = alice_private
    team = alice.add_folder(str(tmp_path / "alice-team"), Share("team"))
    write(alice, team, "menu.txt", "the canteen menu")
    with connect(bob_url) as bob:
        assert bob.execute("SELECT count(*) FROM documents").fetchone()[0] == 1  # the team's document: seen
        for statement in ("UPDATE documents SET title = 'x'", "DELETE FROM documents", "DELETE FROM chunks",
                          "UPDATE chunks SET text = 'x'", "DELETE FROM chunk_vectors", "DELETE FROM folders",
                          "UPDATE folders SET visibility = 'team', owner = current_user", "DELETE FROM ocr_pages",
                          "UPDATE chats SET title = 'x'", "DELETE FROM chats", "DELETE FROM messages",
                          "DELETE FROM folder_watchers", "DELETE FROM folder_leases", "DELETE FROM machines"):
            assert bob.execute(statement).rowcount == 0, statement
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            bob.execute("INSERT INTO documents (folder_id, path, status, indexed_at) VALUES (%s, '/x', 'indexed', 0)",
                        (team.id,))
        assert bob.execute("UPDATE meta SET value = 'other' WHERE key = 'embed_model'").rowcount == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # a library-wide value only the admin sets
            bob.execute("INSERT INTO meta VALUES ('default_share', 'private')")
    with connect(admin_url) as admin:
        assert admin.execute("SELECT count(*) FROM documents").fetchone()[0] == 2
        assert admin.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0] == 2
        assert admin.execute("SELECT count(*) FROM chats WHERE id = %s", (chat,)).fetchone()[0] == 0  # Alice's
        assert admin.execute("SELECT count(*) FROM folder_leases").fetchone()[0] == 1
        assert admin.execute("SELECT value FROM meta WHERE key = 'embed_model'").fetchone()[0] == "test-model"


@pytest.mark.parametrize("statement", [
    "CREATE TABLE stolen (t text)", "DROP TABLE chunks", "TRUNCATE chunks", "ALTER TABLE chunks DISABLE ROW LEVEL "
    "SECURITY", "ALTER TABLE folders NO FORCE ROW LEVEL SECURITY", "DROP POLICY see ON folders",
    "CREATE INDEX nope ON chunks(text)", "SET ROLE trove", "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
])
def test_bob_cannot_change_the_schema(people, statement):
    _, _, bob_url = people
    with connect(bob_url) as bob, pytest.raises(psycopg.errors.InsufficientPrivilege):
        bob.execute(statement)


def test_a_person_cannot_claim_or_purge_another_persons_machine(people, alice_private):
    _, _, bob_url = people
    alice, folder, _, _ = alice_private
    with pytest.raises(KnownError, match="belongs to alice"):
        PostgresStore(bob_url, machine="desk-alice")  # TROVE_MACHINE_ID set to Alice's id
    with connect(bob_url) as bob:
        assert bob.execute("DELETE FROM folder_watchers WHERE machine_id = 'desk-alice'").rowcount == 0
        assert bob.execute("UPDATE machines SET role = current_user WHERE machine_id = 'desk-alice'").rowcount == 0
        with pytest.raises(psycopg.errors.UniqueViolation):
            bob.execute("INSERT INTO machines (machine_id) VALUES ('desk-alice')")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            bob.execute("INSERT INTO machines (machine_id, role) VALUES ('desk-new', 'trove_p_alice')")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            bob.execute("INSERT INTO folder_leases VALUES (%s, 'desk-bob', now() + interval '1 hour')", (folder.id,))
    bob = PostgresStore(bob_url, machine="desk-bob")
    try:
        assert bob.delete_folder(folder.id) == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            bob.claim_folder(folder.id)
        assert bob.folder_holder(folder.id) is None  # Alice's lease on her private folder: not even seen
    finally:
        bob.close()
    assert [f.id for f in alice.folders()] == [folder.id] and alice.counts().documents == 1


def test_sharing_with_named_people_and_changing_it(people, pg_server, pg_url, tmp_path):
    _, alice_url, bob_url = people
    carol_url = person_url(pg_server, pg_url, "carol")
    alice = PostgresStore(alice_url, machine="desk-alice")
    bob = PostgresStore(bob_url, machine="desk-bob")
    carol = PostgresStore(carol_url, machine="desk-carol")
    try:
        folder = alice.add_folder(str(tmp_path / "board"), Share("people", ("bob",)))
        assert (folder.owner, folder.visibility, folder.people) == ("alice", "people", ("bob",))
        write(alice, folder, "minutes.txt", "board minutes")
        assert bob.counts().documents == 1 and carol.counts().documents == 0
        with pytest.raises(KnownError, match="Only the person who added"):
            bob.set_folder_share(folder.id, Share("team"))
        with pytest.raises(KnownError, match="No one named dave"):
            alice.set_folder_share(folder.id, Share("people", ("dave",)))
        assert alice.set_folder_share(folder.id, Share("team")).visibility == "team"
        assert carol.counts().documents == 1
        alice.set_folder_share(folder.id, Share("private"))
        assert bob.counts().documents == carol.counts().documents == 0 and alice.counts().documents == 1
    finally:
        for store in (alice, bob, carol):
            store.close()


def test_the_default_for_new_folders_is_the_administrators(people, tmp_path):
    admin_url, alice_url, _ = people
    alice = PostgresStore(alice_url, machine="desk-alice")
    admin = PostgresStore(admin_url, machine="server-desk")
    try:
        assert alice.default_share() == Share("team")
        assert alice.add_folder(str(tmp_path / "one")).visibility == "team"
        with pytest.raises(KnownError, match="administrator"):
            alice.set_default_share(Share("private"))
        admin.set_default_share(Share("private"))
        assert alice.add_folder(str(tmp_path / "two")).visibility == "private"
        assert alice.add_folder(str(tmp_path / "three"), Share("team")).visibility == "team"
    finally:
        alice.close()
        admin.close()


def test_chats_are_their_authors(people):
    _, alice_url, bob_url = people
    alice = PostgresStore(alice_url, machine="desk-alice")
    bob = PostgresStore(bob_url, machine="desk-bob")
    try:
        mine = alice.create_chat("alice's", 1.0)
        theirs = bob.create_chat("bob's", 2.0)
        assert [c.id for c in alice.list_chats()] == [mine] and [c.id for c in bob.list_chats()] == [theirs]
        assert not bob.chat_exists(mine) and bob.delete_chat(mine) is False
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # a message into someone else's chat
            bob.add_messages(mine, [MessageRow(0, mine, "user", "hi", (), (), 1.0)], "t", 1.0)
        assert alice.chat_messages(mine) == []
    finally:
        alice.close()
        bob.close()


def test_a_person_never_replaces_the_librarys_vectors(people, alice_private):
    admin_url, _, bob_url = people
    bob = PostgresStore(bob_url, machine="desk-bob")
    try:
        with pytest.raises(KnownError, match="only its\\s+administrator"):
            bob.ensure_embedding_model("another-model", 16)
        assert bob.ensure_embedding_model("test-model", DIM) is False
    finally:
        bob.close()
    with connect(admin_url) as admin:
        assert admin.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0] == 1


def test_a_moved_document_takes_its_chunks_and_vectors_to_the_new_folder(people, tmp_path):
    _, alice_url, bob_url = people
    alice = PostgresStore(alice_url, machine="desk-alice")
    try:
        team = alice.add_folder(str(tmp_path / "team"), Share("team"))
        private = alice.add_folder(str(tmp_path / "private"), Share("private"))
        doc_id = write(alice, team, "draft.txt", "a draft about the move")
        with connect(bob_url) as bob:
            assert bob.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0] == 1
            alice.move_documents([DocumentMove(doc_id=doc_id, folder_id=private.id,
                                               path=str(Path(private.path) / "draft.txt"), size=1, mtime_ns=2)])
            assert bob.execute("SELECT count(*) FROM chunks").fetchone()[0] == 0
            assert bob.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0] == 0
    finally:
        alice.close()
