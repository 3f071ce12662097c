"""Chats and messages persist in the real library database (migrated by the store itself)."""

from __future__ import annotations

import pytest

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate.citations import Citation
from desktop_app.core.chat.sessions import ChatNotFoundError, ChatSessions, title_for
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.store.sqlite.connect import connect
from desktop_app.core.types import Turn


@pytest.fixture
def db(tmp_path):
    s = SQLiteStore(tmp_path / "library.db")
    yield s
    s.close()


@pytest.fixture
def store(db):
    return ChatSessions(db)


def test_exchanges_persist_with_citations_and_passages(store, db, tmp_path):
    chat = store.create_chat()
    passages = [Passage(1, "text one", "/d/a.pdf", page=2, chunk_id=5, score=0.9)]
    cites = [Citation(1, "/d/a.pdf", 2, 5, "text one")]
    store.add_exchange(chat, "What is in a?", "It says text one [1].", cites, passages)
    store.add_exchange(chat, "And b?", "Not covered.", [], [])
    db.close()  # reopen from disk
    reopened = SQLiteStore(tmp_path / "library.db")
    again = ChatSessions(reopened)
    msgs = again.messages(chat)
    assert [(m.role, m.content) for m in msgs] == [("user", "What is in a?"), ("assistant", "It says text one [1]."),
                                                   ("user", "And b?"), ("assistant", "Not covered.")]
    assert msgs[1].citations == tuple(cites) and msgs[1].passages == tuple(passages)
    assert again.turns(chat) == [Turn("What is in a?", "It says text one [1]."), Turn("And b?", "Not covered.")]
    [summary] = again.list_chats()
    assert summary.title == "What is in a?" and summary.message_count == 4
    reopened.close()


def test_list_is_most_recent_first_and_delete_cascades(store, tmp_path):
    a, b = store.create_chat("a"), store.create_chat("b")
    store.add_exchange(a, "q", "r", [], [])
    assert [c.id for c in store.list_chats()] == [a, b]
    assert store.delete_chat(a) is True and store.delete_chat(a) is False
    conn = connect(tmp_path / "library.db")
    assert conn.execute("SELECT COUNT(*) FROM messages WHERE chat_id = ?", (a,)).fetchone()[0] == 0
    conn.close()
    with pytest.raises(ChatNotFoundError):
        store.messages(a)


def test_title_is_one_line_and_short():
    assert title_for("  what\nis   this ") == "what is this"
    long = title_for("word " * 40)
    assert len(long) <= 61 and long.endswith("…")
