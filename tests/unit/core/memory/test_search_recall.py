"""Unified search (tiers, provenance, freshness, scopes) and recall (threshold, never twice, memory off)."""

from __future__ import annotations

import pytest

from desktop_app.core.memory.recall import Recaller
from desktop_app.core.memory.search import coverage
from desktop_app.core.memory.service import MemoryService, memory_results
from desktop_app.core.types import RetrievalResult, Turn

FILLER = [Turn(f"tell me about topic {i}", f"Topic {i} is about gardening tip number {i}.") for i in range(1, 21)]


def deploy_chat(memory, store, clock, title="Deploy plans"):
    chat = store.create_chat(title, clock.now)
    turns = list(FILLER)
    turns[2] = Turn("which port should staging use?", "We decided the staging port is 8099 for the deploy.")
    memory.save_compacted(chat, turns[:12])
    return chat


def test_facts_come_first_then_history_with_provenance(memory, store, clock):
    chat = deploy_chat(memory, store, clock)
    memory.add("staging_port", "8099")
    hits = memory.search("staging port")
    assert hits[0].kind == "fact" and hits[0].tier == 0
    assert hits[0].provenance["key"] == "staging_port" and hits[0].provenance["age"] == "today"
    history = [h for h in hits if h.kind == "history"]
    assert history and history[0].tier == 1
    p = history[0].provenance
    assert p["chat_id"] == chat and p["chat_title"] == "Deploy plans" and p["turns"][0] <= 3 <= p["turns"][1]
    assert p["date"] == "2027-01-15" and ["port", "8099"] in p["breadcrumbs"]
    assert history[0].label().startswith("chat 'Deploy plans' turns ")


def test_an_excerpt_a_newer_fact_replaced_is_returned_but_outdated(memory, store, clock):
    deploy_chat(memory, store, clock)
    memory.add("staging_port", "8099")
    memory.add("staging_port", "8100")
    hits = memory.search("staging port 8099")
    excerpt = next(h for h in hits if h.kind == "history" and "8099" in h.text)
    assert excerpt.outdated and excerpt.provenance["superseded_by"] == "staging_port → 8100"
    facts = [(h.text, h.outdated) for h in hits if h.kind == "fact"]
    assert facts == [("staging port: 8100", False), ("staging port: 8099", True)]


def test_scopes(store, clock):
    docs = [RetrievalResult("The staging server runs on port 8099.", 0.9, "/docs/ops.md", {"chunk_id": 5, "page": 1})]
    memory = MemoryService(store, None, documents=lambda q, k: docs[:k], clock=clock)
    deploy_chat(memory, store, clock)
    kinds = lambda scope: [h.kind for h in memory.search("staging port", scope=scope)]  # noqa: E731
    assert "document" not in kinds("memory") and "history" in kinds("memory")
    assert kinds("documents") == ["document"]
    assert {"history", "document"} <= set(kinds("all"))
    with pytest.raises(ValueError):
        memory.search("x", scope="everything")


def test_memory_off_removes_it_from_search_prompts_and_recall(store, clock):
    docs = [RetrievalResult("Port 8099 in the docs.", 0.9, "/docs/ops.md", {"chunk_id": 5})]
    memory = MemoryService(store, None, documents=lambda q, k: docs[:k], clock=clock)
    deploy_chat(memory, store, clock)
    memory.add("staging_port", "8099")
    memory.set_enabled(False)
    assert not memory.enabled
    assert memory.search("staging port") == []
    assert [h.kind for h in memory.search("staging port", scope="all")] == ["document"]
    assert memory.facts_for_prompt() == "" and not memory.recall(None, ["which staging port did we pick?"])
    assert memory.remember("my editor is neovim") == [] and memory.save_compacted(1, FILLER) == 0
    memory.set_enabled(True)
    assert memory.search("staging port")[0].kind == "fact"


def test_recall_respects_the_threshold_and_never_repeats_in_a_chat(memory, store, clock):
    deploy_chat(memory, store, clock)
    chat = store.create_chat("Later", clock.now)
    first = memory.recall(chat, ["hello", "which staging port did we decide on for the deploy?"])
    assert len(first.excerpts) == 1 and "8099" in first.excerpts[0].text
    assert first.tokens > 0
    again = memory.recall(chat, ["which staging port did we decide on for the deploy?"])
    assert again.excerpts == ()
    elsewhere = memory.recall(store.create_chat("Another", clock.now), ["which staging port did we decide on?"])
    assert [h.ref for h in elsewhere.excerpts] == [h.ref for h in first.excerpts]
    assert memory.recall(chat, ["what is the capital of Peru?"]).excerpts == ()


def test_recall_leaves_out_turns_still_in_the_window(memory, store, clock):
    chat = deploy_chat(memory, store, clock)
    assert memory.recall(chat, ["which staging port did we decide on?"], visible_from=1).excerpts == ()
    assert len(memory.recall(chat, ["which staging port did we decide on?"], visible_from=13).excerpts) == 1


def test_recall_gives_at_most_two_excerpts_and_the_facts(memory, store, clock):
    for i in range(4):
        chat = store.create_chat(f"chat {i}", clock.now)
        memory.save_compacted(chat, [Turn("staging port deploy decision", f"staging port deploy decision {i}")])
    memory.add("editor", "neovim")
    r = memory.recall(None, ["staging port deploy decision"])
    assert len(r.excerpts) == 2 and "editor → neovim" in r.facts_text


def test_coverage_works_in_every_script():
    assert coverage("พอร์ตของเซิร์ฟเวอร์คือ 8099", "พอร์ตเซิร์ฟเวอร์")[1] == 2
    assert coverage("رقم المنفذ هو 8099", "المنفذ 8099") == (1.0, 2)
    recaller = Recaller.__new__(Recaller)
    recaller.min_similarity, recaller.min_coverage = 0.5, 0.6
    assert recaller.relevant("رقم المنفذ هو 8099", "المنفذ 8099", None)
    assert not recaller.relevant("something else", "المنفذ 8099", 0.1)


def test_memory_results_for_citations(memory, store, clock):
    deploy_chat(memory, store, clock)
    memory.add("staging_port", "8099")
    results = memory_results(memory.search("staging port"))
    assert results[0].source == "memory" and results[0].metadata["label"].startswith("fact staging_port, ")
    assert results[0].content.startswith("staging port: 8099 (confidence 100%, updated ")
    assert any(r.metadata["memory"]["kind"] == "history" and r.metadata["label"].startswith("chat '")
               for r in results)
    assert results[0].metadata["memory"]["kind"] == "fact"


def test_one_shared_word_does_not_take_a_fact_slot(memory):
    memory.add("hometown", "Malmo, where Caroline grew up")
    assert [h.kind for h in memory.search("What did Caroline paint last week?")] == []
    assert [h.kind for h in memory.search("hometown")] == ["fact"]
    assert [h.kind for h in memory.search("where did Caroline grow up")] == ["fact"]


def test_the_fact_list_keeps_one_order_and_keeps_the_facts_a_query_is_about_when_cut(memory):
    for key, value in (("editor", "neovim"), ("staging_port", "8099"), ("shell", "fish")):
        memory.add(key, value)
    every = memory.facts_for_prompt(query="which editor do I use?")
    assert every == memory.facts_for_prompt(query="what port does staging use?")  # one prefix for the KV cache
    assert every.count("\n- ") == 3
    one = memory.facts_for_prompt(max_tokens=30, query="what port does staging use?")
    assert one.count("\n- ") == 1 and "8099" in one
    assert "neovim" in memory.facts_for_prompt(max_tokens=30, query="which editor do I use?")
