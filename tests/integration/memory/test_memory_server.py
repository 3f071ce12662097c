"""Memory in a chat on a team library (the real PostgreSQL of the test fixtures): the chats and the person's memory
live on the server (memory in tables row-level security keeps to its person), nothing in a local file. A decision
of chat 1 is recalled in chat 3 with its provenance; deleting chat 1 deletes its memory."""

from __future__ import annotations

import pytest

from desktop_app.core.chat.service import ChatService
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from tests.integration.memory.test_memory_chat import SETTINGS, reply, system
from tests.support.scripted import ScriptedRuntime


@pytest.fixture
def library(pg_url, tmp_path, minilm, monkeypatch):
    monkeypatch.setenv("TROVE_MACHINE_ID", "desk-memory")
    lib = Library(tmp_path / "home", settings=Settings(**SETTINGS), db=pg_url, embedder=minilm)
    yield lib
    lib.close()


def test_memory_beside_a_server_library_recalls_across_chats_and_forgets_a_deleted_chat(library, tmp_path):
    rt = ScriptedRuntime(reply, n_ctx=2048)
    library._chat = ChatService(library.store, library._retrieve_for_chat, lambda: library.settings,
                                runtime_factory=lambda s, p: rt, quote_selector=None, reranker=None,
                                memory=lambda: library.memory)
    one = library.ask("Which port should the staging server listen on?")
    library.ask("Remember that the shed code is 4417.")
    three = library.ask("What did we decide about the staging port last week?")
    assert not (tmp_path / "home" / "memory.db").exists()  # memory is on the server, not in a local file
    assert library.memory.fact_sql.db is library.store
    assert "shed code → 4417" in system(rt)
    [item] = [m for m in three.memory if m["kind"] == "history"]
    assert item["provenance"]["chat_id"] == one.chat_id and "8099" in item["text"]
    library.chat.delete_chat(one.chat_id)
    assert all(h.provenance.get("chat_id") != one.chat_id for h in library.memory.search("staging port 8099"))
    again = library.ask("What did we decide about the staging port?")
    assert not [m for m in again.memory if m["kind"] == "history" and "8099" in m["text"]]
    assert "8099" not in "\n".join(m["content"] for m in rt.sent[-1])
