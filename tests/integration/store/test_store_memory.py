"""The MemoryStore role, one suite for both engines (the `store` fixture runs each test on SQLite and PostgreSQL):
the facts and raw history chunks conversation memory keeps, through `store.memory_facts()` and
`store.memory_chunks()`, as core/memory uses them."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np

from desktop_app.core.store.base import MemoryChunks, MemoryFacts, MemoryStore
from desktop_app.core.store.memory_rows import FactSource, NewFact, NewMemoryChunk
from desktop_app.core.store.rows import MessageRow
from tests.integration.store.conftest import DIM


def unit(seed: int, windows: int | None = None) -> np.ndarray:
    """A deterministic unit vector (or a (windows, DIM) matrix of them)."""
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(windows, DIM) if windows else (DIM,)).astype(np.float32)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def piece(chat_id: int, first: int, text: str, title: str = "Ops") -> NewMemoryChunk:
    return NewMemoryChunk(chat_id, title, first, first + 1, text, f"h-{chat_id}-{text}", (("port", "8099"),))


# ---- the role --------------------------------------------------------------------------------------------------


def test_each_engine_keeps_memory_behind_the_role(store):
    assert isinstance(store, MemoryStore)
    facts, chunks = store.memory_facts(), store.memory_chunks()
    assert facts.facts() == [] and chunks.count() == 0
    # a view shares the store's connections: what one view writes, a view made later reads
    fid = facts.insert_fact(NewFact("editor", "vim"), 10.0)
    assert store.memory_facts().fact(fid).value == "vim"


# ---- the switch ------------------------------------------------------------------------------------------------


def test_memory_is_on_until_turned_off_and_remembers_its_watermark(store):
    facts = store.memory_facts()
    assert facts.enabled() and facts.forgot_through() == 0
    facts.set_enabled(False)
    facts.set_forgot_through(41)
    facts.set_forgot_through(42)
    again = store.memory_facts()
    assert not again.enabled() and again.forgot_through() == 42
    again.set_enabled(True)
    assert facts.enabled() and facts.forgot_through() == 42  # the switch keeps the watermark


# ---- facts -----------------------------------------------------------------------------------------------------


def test_a_fact_round_trips_with_every_field(store):
    facts = store.memory_facts()
    new = NewFact("preferred_editor", "neovim", "tools", FactSource.CONVERSATION, 0.7, 99.5, chat_id=3, turn=2)
    fid = facts.insert_fact(new, 10.0, merged_keys=("editor",), vector=unit(1).tobytes())
    got = facts.fact(fid)
    assert (got.key, got.value, got.category, got.source, got.confidence) == (
        "preferred_editor", "neovim", "tools", "conversation", 0.7)
    assert (got.created_at, got.updated_at, got.expires_at, got.merged_keys) == (10.0, 10.0, 99.5, ("editor",))
    assert (got.chat_id, got.turn, got.superseded_by) == (3, 2, None)
    assert facts.fact(10**9) is None
    facts.touch_fact(fid, 20.0, 0.9, ("editor", "editor_of_choice"), None)
    touched = facts.fact(fid)
    assert (touched.created_at, touched.updated_at, touched.confidence, touched.expires_at) == (10.0, 20.0, 0.9, None)
    assert touched.merged_keys == ("editor", "editor_of_choice")


def test_a_correction_supersedes_and_lists_come_newest_first(store):
    facts = store.memory_facts()
    old = facts.insert_fact(NewFact("city", "Lyon"), 10.0)
    new = facts.insert_fact(NewFact("city", "Porto"), 20.0)
    other = facts.insert_fact(NewFact("pet", "cat"), 15.0)
    facts.supersede(old, new)
    assert facts.fact(old).superseded_by == new and facts.fact(old).outdated
    assert [f.id for f in facts.facts()] == [new, other, old]
    assert [f.id for f in facts.facts(current_only=True)] == [new, other]
    assert set(facts.facts_by_id([old, new, 10**9])) == {old, new} and facts.facts_by_id([]) == {}


def test_facts_are_found_by_the_words_of_their_key_and_value(store):
    facts = store.memory_facts()
    port = facts.insert_fact(NewFact("staging_port", "8099"), 10.0)
    editor = facts.insert_fact(NewFact("editor", "neovim with a dark theme"), 10.0)
    assert [i for i, _ in facts.fact_keyword_candidates("staging port", 10)] == [port]  # the key's words
    found = facts.fact_keyword_candidates("dark theme", 10)
    assert [i for i, _ in found] == [editor] and found[0][1] > 0
    assert facts.fact_keyword_candidates("nothing like it", 10) == []
    assert facts.fact_keyword_candidates("\"(*", 10) == [] and facts.fact_keyword_candidates("port", 0) == []


def test_fact_vectors_are_stored_and_listed(store):
    facts = store.memory_facts()
    with_vector = facts.insert_fact(NewFact("a", "one"), 10.0, vector=unit(1).tobytes())
    without = facts.insert_fact(NewFact("b", "two"), 10.0)
    assert [f.id for f in facts.facts_without_vectors()] == [without]
    facts.set_fact_vectors([(without, unit(2).tobytes())])
    facts.set_fact_vectors([])
    vectors = dict(facts.fact_vectors())
    assert set(vectors) == {with_vector, without} and facts.facts_without_vectors() == []
    assert np.allclose(np.frombuffer(vectors[without], dtype=np.float32), unit(2))


def test_forgetting_a_fact_takes_the_values_it_superseded(store):
    facts = store.memory_facts()
    first = facts.insert_fact(NewFact("city", "Lyon"), 10.0)
    second = facts.insert_fact(NewFact("city", "Porto"), 20.0)
    third = facts.insert_fact(NewFact("city", "Oslo"), 30.0)
    kept = facts.insert_fact(NewFact("pet", "cat"), 10.0)
    facts.supersede(first, second)
    facts.supersede(second, third)
    assert facts.delete_facts([third]) == 3
    assert [f.id for f in facts.facts()] == [kept] and facts.delete_facts([third]) == 0


# ---- raw history -----------------------------------------------------------------------------------------------


def test_chunks_append_once_per_text_and_read_back(store):
    chunks = store.memory_chunks()
    a, b = chunks.insert([piece(7, 1, "The staging server listens on 8099."), piece(7, 3, "Deploy on Fridays.")],
                         100.0)
    assert chunks.insert([piece(7, 1, "The staging server listens on 8099.")], 200.0) == []  # already kept
    assert chunks.insert([], 200.0) == []
    other = chunks.insert([piece(8, 1, "Lunch at noon.", title="Food")], 150.0)[0]
    assert chunks.count() == 3 and chunks.last_turn(7) == 4 and chunks.last_turn(99) == 0
    got = chunks.chunks([a, other, 10**9])
    assert set(got) == {a, other}
    first = got[a]
    assert (first.chat_id, first.chat_title, first.first_turn, first.last_turn) == (7, "Ops", 1, 2)
    assert (first.text, first.text_hash, first.breadcrumbs, first.created_at) == (
        "The staging server listens on 8099.", "h-7-The staging server listens on 8099.", (("port", "8099"),), 100.0)
    assert [c.id for c in chunks.chat_chunks(7)] == [a, b] and chunks.chat_chunks(99) == []


def test_chunks_are_found_by_words_title_and_breadcrumbs(store):
    chunks = store.memory_chunks()
    ops, food = chunks.insert([piece(7, 1, "The staging server is slow."), piece(8, 1, "Lunch at noon.", "Food")],
                              100.0)
    assert [i for i, _ in chunks.keyword_candidates("staging server", 10)] == [ops]
    assert {i for i, _ in chunks.keyword_candidates("8099", 10)} == {ops, food}  # both carry the breadcrumb
    assert [i for i, _ in chunks.keyword_candidates("food", 10)] == [food]  # the chat's title
    assert chunks.keyword_candidates("absent words", 10) == [] and chunks.keyword_candidates("staging", 0) == []


def test_chunk_vectors_wait_then_are_searched_by_their_best_window(store):
    chunks = store.memory_chunks()
    assert chunks.ensure_model("test-model", DIM) is True
    assert chunks.ensure_model("test-model", DIM) is False
    a, b = chunks.insert([piece(7, 1, "alpha"), piece(7, 3, "beta")], 100.0)
    assert [c.id for c in chunks.pending(10)] == [a, b] and [c.id for c in chunks.pending(1)] == [a]
    assert chunks.store_vectors([(a, unit(1, windows=2)), (b, unit(2)), (10**9, unit(3))]) == 2
    assert chunks.store_vectors([(a, unit(4))]) == 0  # it has vectors already
    assert chunks.pending(10) == []
    hits = chunks.dense_candidates(unit(1, windows=2)[1], 10)
    assert [i for i, _ in hits] == [a, b] and abs(hits[0][1] - 1.0) < 1e-5
    assert chunks.dense_candidates(unit(2), 1)[0][0] == b and chunks.dense_candidates(unit(2), 0) == []


def test_a_new_model_drops_chunk_and_fact_vectors(store):
    facts, chunks = store.memory_facts(), store.memory_chunks()
    chunks.ensure_model("test-model", DIM)
    [cid] = chunks.insert([piece(7, 1, "alpha")], 100.0)
    chunks.store_vectors([(cid, unit(1))])
    fid = facts.insert_fact(NewFact("a", "one"), 10.0, vector=unit(1).tobytes())
    assert chunks.ensure_model("other-model", 4) is True
    assert [c.id for c in chunks.pending(10)] == [cid] and [f.id for f in facts.facts_without_vectors()] == [fid]
    half = np.full(4, 0.5, np.float32)  # a unit vector of the new size
    assert chunks.dense_candidates(half, 10) == []
    assert chunks.store_vectors([(cid, half)]) == 1
    assert [i for i, _ in chunks.dense_candidates(half, 10)] == [cid]


def test_recall_records_are_kept_per_chat(store):
    chunks = store.memory_chunks()
    a, b = chunks.insert([piece(7, 1, "alpha"), piece(7, 3, "beta")], 100.0)
    assert chunks.recalled(12) == set()
    chunks.mark_recalled(12, [a], 300.0)
    chunks.mark_recalled(12, [a, b], 301.0)  # again: kept once
    chunks.mark_recalled(13, [b], 300.0)
    assert chunks.recalled(12) == {a, b} and chunks.recalled(13) == {b}


# ---- forgetting ------------------------------------------------------------------------------------------------


def test_forgetting_a_chat_takes_what_it_left_and_only_that(store):
    facts, chunks = store.memory_facts(), store.memory_chunks()
    said = facts.insert_fact(NewFact("city", "Lyon", chat_id=7), 10.0)
    correction = facts.insert_fact(NewFact("city", "Porto", chat_id=8), 20.0)
    facts.supersede(said, correction)
    old = facts.insert_fact(NewFact("pet", "dog", chat_id=8), 10.0)
    new = facts.insert_fact(NewFact("pet", "cat", chat_id=7), 20.0)
    facts.supersede(old, new)
    gone, kept = chunks.insert([piece(7, 1, "alpha"), piece(8, 1, "beta")], 100.0)
    chunks.mark_recalled(7, [kept], 1.0)
    assert facts.delete_chat(7) == 3  # its two facts and its chunk
    assert {f.id for f in facts.facts()} == {correction, old}
    assert facts.fact(old).superseded_by is None  # the correction went with its chat: the older value is current
    assert set(chunks.chunks([gone, kept])) == {kept} and chunks.recalled(7) == set()


def test_deleting_a_chat_in_the_library_forgets_its_memory(store):
    chat = store.create_chat("Ops", 1.0)
    store.add_messages(chat, [MessageRow(0, chat, "user", "hi", created_at=1.0)], "Ops", 1.0)
    facts, chunks = store.memory_facts(), store.memory_chunks()
    facts.insert_fact(NewFact("shed_code", "4417", chat_id=chat), 10.0)
    [cid] = chunks.insert([piece(chat, 1, "The shed code is 4417.")], 100.0)
    chunks.mark_recalled(chat, [cid], 1.0)
    assert store.delete_chat(chat)
    assert facts.facts() == [] and chunks.count() == 0 and chunks.recalled(chat) == set()


def test_forget_all_clears_facts_chunks_and_recalls(store):
    facts, chunks = store.memory_facts(), store.memory_chunks()
    facts.insert_fact(NewFact("a", "one"), 10.0)
    a, b = chunks.insert([piece(7, 1, "alpha"), piece(7, 3, "beta")], 100.0)
    chunks.mark_recalled(7, [a], 1.0)
    facts.set_enabled(False)
    assert facts.delete_all() == 3
    assert facts.facts() == [] and chunks.count() == 0 and chunks.recalled(7) == set()
    assert not facts.enabled()  # forgetting is not switching off


# ---- the suite covers the whole role ---------------------------------------------------------------------------


def test_every_memory_method_is_exercised_here():
    source = Path(__file__).read_text(encoding="utf-8")
    members = {n for role in (MemoryStore, MemoryFacts, MemoryChunks)
               for n, _ in inspect.getmembers(role) if not n.startswith("_")}
    assert sorted(m for m in members if f".{m}(" not in source) == []
