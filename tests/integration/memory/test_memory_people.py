"""Memory on a team library is its person's: Alice and Bob are login roles on the real test PostgreSQL, and
row-level security (FORCEd on the memory tables) decides. Bob's desktop, and Bob with psql and his own URL,
reads, changes and deletes none of Alice's facts, raw chunks, vectors or recall records."""

from __future__ import annotations

import psycopg
import pytest

from desktop_app.core.memory.service import MemoryService
from desktop_app.core.store.postgres import PostgresStore
from desktop_app.core.store.postgres.memory.schema import MEMORY_TABLES
from desktop_app.core.store.rows import MessageRow
from desktop_app.core.types import Turn
from tests.support.people import connect, person_url


@pytest.fixture
def people(pg_server, pg_url, minilm):
    """(Alice's MemoryService, Bob's, Alice's URL, Bob's URL, the admin URL); the admin opened the library first."""
    urls = {name: person_url(pg_server, pg_url, name) for name in ("alice", "bob")}
    admin = PostgresStore(pg_url, machine="server-desk")
    admin.ensure_embedding_model(minilm.model_id, minilm.dim)
    admin.close()
    stores = {name: PostgresStore(url, machine=f"desk-{name}") for name, url in urls.items()}
    yield (MemoryService(stores["alice"], minilm), MemoryService(stores["bob"], minilm), urls["alice"],
           urls["bob"], pg_url)
    for store in stores.values():
        store.close()


def alice_remembers(alice: MemoryService) -> int:
    chat = alice.store.create_chat("Ops", 1.0)
    alice.store.add_messages(chat, [MessageRow(0, chat, "user", "Which port for staging?", (), (), 1.0)], "t", 1.0)
    alice.add("staging_port", "8099")
    alice.remember("My editor is neovim.", chat_id=chat, turn=1)
    assert alice.save_compacted(chat, [Turn("Which port for staging?", "We decided on port 8099 for staging.")],
                                title="Ops") == 1
    assert alice.recall(alice.store.create_chat("Later", 2.0), ["what did we decide about the staging port?"])
    return chat


def test_bob_reads_changes_and_deletes_none_of_alices_memory(people):
    alice, bob, _, bob_url, _ = people
    alice_remembers(alice)
    assert bob.list(include_outdated=True) == [] and bob.search("staging port 8099 editor") == []
    assert bob.forget("staging_port") == 0 and bob.forget_all() == 0
    with connect(bob_url) as conn:
        for table in MEMORY_TABLES:  # Bob's own settings row (his model, recorded by his search) is all he has
            assert conn.execute(f"SELECT count(*) FROM {table} WHERE owner <> current_user").fetchone() == (0,)
            assert conn.execute(f"UPDATE {table} SET owner = current_user WHERE owner <> current_user").rowcount == 0
            assert conn.execute(f"DELETE FROM {table} WHERE owner <> current_user").rowcount == 0, table
        assert conn.execute("DELETE FROM memory_facts").rowcount == 0
        assert conn.execute("DELETE FROM memory_chunks").rowcount == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # a row in Alice's name: the policy refuses it
            conn.execute("INSERT INTO memory_facts (owner, key, value, source, confidence, created_at, updated_at, "
                         "terms) VALUES ('trove_p_alice', 'staging_port', '1234', 'user_explicit', 1, 0, 0, '')")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("ALTER TABLE memory_facts NO FORCE ROW LEVEL SECURITY")
    assert {f.key: f.value for f in alice.list()} == {"staging_port": "8099", "editor": "neovim"}
    [history] = [h for h in alice.search("staging port") if h.kind == "history"]
    assert "8099" in history.text and history.provenance["chat_title"] == "Ops"


def test_the_administrator_sees_only_its_own_memory_too(people):
    alice, _, _, _, admin_url = people
    alice_remembers(alice)
    with connect(admin_url) as conn:  # the tables' owner: FORCEd row-level security binds it as well
        assert [conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in MEMORY_TABLES] == [0] * 5
    with connect(alice.store.url) as conn:
        counts = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in MEMORY_TABLES}
    assert counts["memory_facts"] == 2 and counts["memory_chunks"] == 1 and counts["memory_vectors"] >= 1
    assert counts["memory_recalls"] == 1


def test_memory_off_forget_and_a_deleted_chat_are_each_persons_own(people):
    alice, bob, _, _, _ = people
    chat = alice_remembers(alice)
    bob.add("shell", "fish")
    bob.set_enabled(False)
    assert alice.enabled and alice.search("staging port") and not bob.enabled and bob.search("shell") == []
    alice.store.delete_chat(chat)  # the server's trigger removes what the chat left in memory
    assert all(h.provenance.get("chat_id") != chat for h in alice.search("staging port 8099 editor neovim"))
    assert [f.key for f in alice.list()] == ["staging_port"]
    alice.set_enabled(False)
    assert alice.search("staging port") == [] and alice.facts_for_prompt() == ""
    assert not alice.recall(None, ["what is the staging port?"])
    alice.set_enabled(True)
    assert alice.forget_all() == 1 and alice.search("staging port") == []
    bob.set_enabled(True)
    assert [f.value for f in bob.list()] == ["fish"]
