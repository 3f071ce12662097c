"""Raw history: packing (at most 4,000 characters, hashed), append-only saving, deletion with the chat."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.memory.raw import RAW_MAX_CHARS, TurnText, chat_turns, content_hash, pack_turns
from desktop_app.core.types import Turn


def test_chunks_stay_within_the_limit_and_keep_every_turn():
    turns = [TurnText(i, "word " * (50 * i)) for i in range(1, 30)]
    chunks = pack_turns(1, "t", turns, target_chars=1000)
    assert all(len(c.text) <= RAW_MAX_CHARS for c in chunks)
    assert all(c.text_hash == content_hash(c.text) for c in chunks)
    covered = [n for c in chunks for n in range(c.first_turn, c.last_turn + 1)]
    assert sorted(set(covered)) == list(range(1, 30))
    assert [c.first_turn for c in chunks] == sorted(c.first_turn for c in chunks)


def test_a_turn_longer_than_a_chunk_is_cut_and_shares_its_number():
    chunks = pack_turns(1, "t", [TurnText(7, "x" * 9000)])
    assert len(chunks) == 3 and all(len(c.text) <= RAW_MAX_CHARS for c in chunks)
    assert {(c.first_turn, c.last_turn) for c in chunks} == {(7, 7)}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=5000), max_size=8), st.integers(1, 4000))
def test_packing_never_exceeds_4000_and_never_raises(texts, target):
    chunks = pack_turns(1, "t", [TurnText(i + 1, t) for i, t in enumerate(texts)], target_chars=target)
    assert all(len(c.text) <= RAW_MAX_CHARS for c in chunks)


def test_breadcrumbs_ride_with_the_chunk():
    [chunk] = pack_turns(1, "t", chat_turns([Turn("which port?", "The staging port is 8099, see PROJ-12.")]))
    assert ("port", "8099") in chunk.breadcrumbs and ("ticket", "PROJ-12") in chunk.breadcrumbs
    assert chunk.text.startswith("[turn 1] User: which port?")


def test_saving_is_append_only(memory, store, clock):
    chat = store.create_chat("Deploy", clock.now)
    turns = [Turn(f"question {i}", f"answer {i} " + "x" * 400) for i in range(1, 11)]
    assert memory.save_compacted(chat, turns[:5]) > 0
    before = [(c.id, c.text, c.text_hash) for c in memory.chunk_sql.chat_chunks(chat)]
    assert memory.save_compacted(chat, turns[:5]) == 0  # the same turns again: nothing new
    assert memory.save_compacted(chat, turns) > 0  # only turns 6-10 are added
    after = memory.chunk_sql.chat_chunks(chat)
    assert [(c.id, c.text, c.text_hash) for c in after[:len(before)]] == before
    assert after[len(before)].first_turn == 6 and after[-1].last_turn == 10
    assert all(c.chat_title == "Deploy" for c in after)


def test_deleting_a_chat_deletes_its_memory(memory, store, clock):
    chat = store.create_chat("Deploy", clock.now)
    other = store.create_chat("Other", clock.now)
    memory.save_compacted(chat, [Turn("staging port?", "The staging port is 8099.")])
    memory.save_compacted(other, [Turn("lunch?", "Noodles at noon.")])
    memory.remember("my editor is neovim", chat_id=chat, turn=1)
    memory.remember("my shell is fish", chat_id=other, turn=1)
    assert memory.search("staging port 8099")
    store.delete_chat(chat)
    assert memory.chunk_sql.chat_chunks(chat) == []
    assert [f.key for f in memory.list()] == ["shell"]
    assert all(h.provenance.get("chat_id") != chat for h in memory.search("staging port 8099 editor"))
    assert memory.forget_chat(other) == 2
    assert memory.chunk_sql.count() == 0


def test_memory_lives_in_its_library_store_and_refuses_any_other_object(tmp_path):
    from desktop_app.core.memory.service import MemoryService
    from desktop_app.core.store.sqlite import SQLiteStore

    with pytest.raises(TypeError, match="no memory for a object"):
        MemoryService.for_store(object(), tmp_path)  # a team library's server memory: tests/integration/memory
    store = SQLiteStore(tmp_path / "library.db")
    try:
        memory = MemoryService.for_store(store, tmp_path)
        assert memory.save_compacted(42, [Turn("staging port?", "The staging port is 8099.")], title="Ops") == 1
        assert not (tmp_path / "memory.db").exists()  # no file of its own beside the library
        [hit] = memory.search("staging port")
        assert hit.provenance["chat_id"] == 42 and hit.provenance["chat_title"] == "Ops"
        assert memory.forget_chat(42) == 1 and memory.search("staging port") == []
    finally:
        store.close()


def test_a_chunk_gets_one_vector_text_per_turn_at_most_eight():
    from desktop_app.core.memory.raw import turn_windows

    [chunk] = pack_turns(1, "t", [TurnText(i, f"Caroline: turn text {i}") for i in range(1, 12)])
    windows = turn_windows(chunk.text, 8)
    assert len(windows) == 8 and "\n\n".join(windows) == chunk.text
    assert turn_windows(pack_turns(1, "t", [TurnText(3, "one")])[0].text, 8) == ["[turn 3] one"]
