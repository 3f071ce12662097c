"""Memory that obeys (issue 42), on both engines: a remember request is acknowledged with what was stored; facts are
forgotten by a word of their key, or the keys there are are named; a forget-all records the newest chat message,
so turns from before it are never saved into memory again."""

from __future__ import annotations

from desktop_app.core.chat.answer.memory_step import acknowledgement, remember_request
from desktop_app.core.chat.sessions import ChatSessions


def test_a_remember_request_is_told_from_a_question_or_a_note():
    assert remember_request("Remember that my locker code is 4417.")
    assert remember_request("Actually, remember that the staging port is 8100.")
    assert remember_request("จำไว้ว่า รหัสห้องประชุมคือ 5521")
    assert not remember_request("Remember that my locker code is 4417. What is the staging port?")
    assert not remember_request("Note the differences between BM25 and dense retrieval.")
    assert not remember_request("My editor is neovim.")  # stated, not asked to be remembered: the ordinary path


def test_the_acknowledgement_names_what_was_stored_and_what_it_replaced(memory):
    assert acknowledgement(memory.remember("Remember that my locker code is 4417.")) == \
        "Remembered: locker code → 4417."
    assert acknowledgement(memory.remember("Actually, remember that my locker code is 5521.")) == \
        "Remembered: locker code → 5521 (was 4417)."
    assert acknowledgement(memory.remember("Remember that my locker code is 5521.")) == \
        "Remembered: locker code → 5521 (already known)."
    assert acknowledgement([]) == ""


def test_forget_by_a_word_of_the_key_or_name_the_keys(memory):
    memory.add("locker_code", "4417")
    memory.add("locker_code", "5521")  # a correction: 4417 stays, outdated
    memory.add("editor", "neovim")
    missed = memory.forget_matching("cupboard")
    assert missed.facts == () and missed.keys == ("editor", "locker_code")
    gone = memory.forget_matching("lockers")  # stemmed: a word of the key, not the key
    assert [(f.key, f.value) for f in gone.facts] == [("locker_code", "5521")] and gone.keys == ()
    assert [f.key for f in memory.list(include_outdated=True)] == ["editor"]
    assert [(f.key, f.value) for f in memory.forget_matching("editor").facts] == [("editor", "neovim")]
    assert memory.forget_matching("editor") == type(missed)((), ())  # nothing left: no keys to name


def test_a_forget_all_records_the_newest_message(memory, store):
    chats = ChatSessions(store)
    assert memory.forgot_through() == 0
    older = chats.create_chat("Old")
    chats.add_exchange(older, "Remember that my locker code is 4417.", "Remembered.", [], [])
    newer = chats.create_chat("New")
    chats.add_exchange(newer, "Which trains leave at six?", "The first one.", [], [])
    memory.forget_all()
    newest = max(m.id for c in (older, newer) for m in chats.messages(c))
    assert memory.forgot_through() == newest and memory.list() == []
