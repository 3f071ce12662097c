"""Facts: merge of near-duplicate keys, corrections that keep the old value findable, expiry, forgetting."""

from __future__ import annotations

import pytest

from desktop_app.core.memory.facts import key_core, same_key
from desktop_app.core.memory.recall import fact_line
from desktop_app.core.memory.rows import FactSource


def test_near_duplicate_keys_are_one_fact():
    assert same_key("language", "preferred_language")
    assert same_key("favourite_colour", "color")
    assert same_key("editor", "editors")
    assert not same_key("staging_port", "port")
    assert not same_key("note_a_b", "note_a_c")
    assert key_core("Preferred Languages") == key_core("language")


def test_same_value_under_another_key_confirms_and_merges(memory, clock):
    first = memory.add("language", "Thai", confidence=0.7)
    clock.advance(2)
    again = memory.add("preferred_language", "thai", confidence=0.9)
    assert again.action == "confirmed" and again.fact.id == first.fact.id
    assert again.fact.merged_keys == ("preferred_language",)
    assert again.fact.confidence == 0.9 and again.fact.updated_at == clock.now
    assert len(memory.list(include_outdated=True)) == 1


def test_a_correction_supersedes_and_the_old_value_stays_findable(memory, clock):
    old = memory.add("editor", "neovim").fact
    clock.advance(1)
    change = memory.add("preferred_editor", "helix")
    assert change.action == "corrected" and [f.id for f in change.replaced] == [old.id]
    assert [(f.key, f.value) for f in memory.list()] == [("editor", "helix")]
    every = {f.value: f for f in memory.list(include_outdated=True)}
    assert every["neovim"].outdated and every["neovim"].superseded_by == change.fact.id
    hits = memory.search("editor neovim")
    assert [(h.kind, h.outdated) for h in hits[:2]] == [("fact", False), ("fact", True)]
    assert hits[1].provenance["superseded_by"] == "editor → helix"


def test_notes_never_correct_each_other(memory):
    memory.remember("Remember that I have a meeting with Jo on Friday.")
    memory.remember("Remember that I have a meeting with Tim on Monday.")
    assert len(memory.list()) == 2


def test_expiry(memory, clock):
    memory.add("parking_spot", "B12", expires_at=clock.now + 86400)
    assert [f.value for f in memory.list()] == ["B12"]
    assert "B12" in memory.facts_for_prompt()
    clock.advance(2)
    assert memory.list() == [] and memory.facts_for_prompt() == ""
    assert [f.value for f in memory.list(include_expired=True)] == ["B12"]
    assert memory.search("parking spot") == []


def test_facts_for_prompt_has_age_and_confidence_within_budget(memory, clock):
    memory.add("editor", "neovim", confidence=0.9)
    clock.advance(34)
    memory.add("shell", "fish")
    text = memory.facts_for_prompt(max_tokens=200)
    assert "- editor → neovim (confidence 90%, updated 34d ago)" in text
    assert "- shell → fish (confidence 100%, updated today)" in text
    one = memory.facts_for_prompt(max_tokens=30)
    assert one.count("\n- ") == 1 and len(one) // 4 <= 30
    assert memory.facts_for_prompt(max_tokens=5) == ""


def test_facts_the_conversation_is_about_come_first(memory):
    memory.add("editor", "neovim")
    memory.add("shell", "fish")
    memory.add("staging_port", "8099")
    first = memory.facts_for_prompt(query="which port is staging on?").splitlines()[1]
    assert first.startswith("- staging port → 8099")


def test_fact_line_format(memory):
    fact = memory.add("editor", "neovim", confidence=0.9).fact
    assert fact_line(fact, fact.updated_at + 34 * 86400) == "- editor → neovim (confidence 90%, updated 34d ago)"


def test_forget_one_key_every_value_and_by_id(memory):
    memory.add("editor", "neovim")
    memory.add("editor", "helix")
    shell = memory.add("shell", "fish").fact
    assert memory.forget("editor") == 2
    assert memory.forget(str(shell.id)) == 1
    assert memory.list(include_outdated=True) == []
    assert memory.forget("nothing") == 0


def test_extracted_facts_carry_their_chat_and_turn(memory, store, clock):
    chat = store.create_chat("Setup", clock.now)
    [change] = memory.remember("my editor is neovim", chat_id=chat, turn=3)
    assert (change.fact.source, change.fact.confidence, change.fact.chat_id, change.fact.turn) == (
        "conversation", 0.9, chat, 3)
    [explicit] = memory.remember("remember that my shell is fish")
    assert (explicit.fact.source, explicit.fact.confidence) == ("user_explicit", 1.0)


def test_the_source_and_confidence_are_kept(memory):
    fact = memory.add("thesis_topic", "coral bleaching", source=FactSource.DOCUMENT, confidence=1.7).fact
    assert (fact.source, fact.confidence) == ("document", 1.0)
    with pytest.raises(ValueError):
        memory.add("  ", "x")
