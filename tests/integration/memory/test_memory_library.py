"""Memory through the Library facade with the real embedder (MiniLM) on both engines (real SQLite, and the test
PostgreSQL server, where memory is in the person's own tables): what a chat relies on."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from desktop_app.core.chat.sessions import ChatSessions
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from desktop_app.core.types import Turn

DAY = 86400.0


@pytest.fixture
def library(tmp_path, minilm, engine):
    """A library on each engine (conftest.py)."""
    lib = Library(home=tmp_path / "home", settings=Settings(embedder="minilm"), embedder=minilm, db=engine.db)
    assert lib.store.info().engine == engine.name
    yield lib
    lib.close()


def chat_with(library, title, turns):
    """A stored chat with these turns, saved to raw memory as compaction would save them."""
    chats = ChatSessions(library.store)
    chat = chats.create_chat(title)
    for i, t in enumerate(turns, start=1):
        chats.add_exchange(chat, t.question, t.answer, [], [])
        library.memory.remember(t.question, chat_id=chat, turn=i)
    return chat


def filler(n, start=1):
    return [Turn(f"Can you suggest recipe idea number {i}?", f"Try a vegetable soup with variation {i}.")
            for i in range(start, start + n)]


def test_a_fact_stated_in_chat_1_is_in_chat_2s_prompt_with_its_age(library):
    memory = library.memory
    chat_with(library, "Setup", [Turn("My editor is neovim, by the way.", "Noted.")])
    fact = memory.list()[0]
    memory.clock = memory.facts.clock = lambda: fact.updated_at + 34 * DAY
    prompt = memory.recall(ChatSessions(library.store).create_chat("Next"), ["how do I set up my editor?"]).facts_text
    assert "- editor → neovim (confidence 90%, updated 34d ago)" in prompt


def test_a_chat_compacted_after_20_turns_recalls_a_number_from_turn_3(library):
    turns = filler(20)
    turns[2] = Turn("The invoice total for the Henderson job was 4,312 euros, remember it.", "Got it: 4,312 euros.")
    chat = chat_with(library, "Invoices", turns)
    assert library.memory.save_compacted(chat, turns[:14], first_turn=1, title="Invoices") > 0
    recall = library.memory.recall(chat, ["What was the invoice total for the Henderson job?"], visible_from=15)
    assert recall.excerpts and "4,312" in recall.excerpts[0].text
    assert recall.excerpts[0].provenance["turns"][0] <= 3 <= recall.excerpts[0].provenance["turns"][1]


def test_a_question_in_chat_3_recalls_a_decision_from_chat_1_with_provenance(library):
    decided = [Turn("Which port should the staging server listen on?",
                    "We decided: the staging server listens on port 8099 from now on.")]
    chat1 = chat_with(library, "Staging server", decided)
    library.memory.save_compacted(chat1, decided, title="Staging server")
    chat2 = chat_with(library, "Lunch", filler(3))
    library.memory.save_compacted(chat2, filler(3))
    chat3 = ChatSessions(library.store).create_chat("")
    recall = library.memory.recall(chat3, ["What did we decide about the staging port last week?"])
    [excerpt] = [h for h in recall.excerpts if h.provenance["chat_id"] == chat1]
    assert "8099" in excerpt.text and excerpt.label().startswith("chat 'Staging server' turn 1, ")
    hits = library.memory.search("What did we decide about the staging port last week?")
    assert hits[0].kind == "history" and hits[0].provenance["chat_id"] == chat1


def test_a_correction_supersedes_and_both_stay_findable(library):
    said = [Turn("Remember that the staging port is 8099.", "Noted.")]
    chat = chat_with(library, "Ports", said)
    library.memory.save_compacted(chat, said)
    [change] = library.memory.remember("Actually, the staging port is 8100.", chat_id=chat, turn=2)
    assert change.action == "corrected"
    hits = library.memory.search("staging port")
    facts = [(h.provenance["value"], h.outdated) for h in hits if h.kind == "fact"]
    assert facts == [("8100", False), ("8099", True)]
    [old_excerpt] = [h for h in hits if h.kind == "history"]
    assert old_excerpt.outdated and "8100" in old_excerpt.provenance["superseded_by"]
    assert "8100" in library.memory.facts_for_prompt() and "8099" not in library.memory.facts_for_prompt()


def test_forget_delete_and_memory_off_remove_it_everywhere(library):
    said = [Turn("My thesis is on coral bleaching.", "Interesting!")]
    chat = chat_with(library, "Thesis", said)
    library.memory.save_compacted(chat, said)
    other = chat_with(library, "Garden", [Turn("Remember that the shed code is 4417.", "Noted.")])
    library.memory.save_compacted(other, [Turn("Remember that the shed code is 4417.", "Noted.")])
    assert "coral bleaching" in library.memory.facts_for_prompt()
    library.store.delete_chat(chat)
    assert "coral" not in library.memory.facts_for_prompt()
    assert all("coral" not in h.text for h in library.memory.search("coral bleaching thesis"))
    library.memory.set_enabled(False)
    assert library.memory.search("shed code") == [] and library.memory.facts_for_prompt() == ""
    assert not library.memory.recall(None, ["what is the shed code?"])
    library.memory.set_enabled(True)
    assert library.memory.search("shed code")
    library.memory.forget("shed_code")
    assert all(h.kind != "fact" for h in library.memory.search("shed code"))
    library.memory.forget_all()
    assert library.memory.search("shed code") == [] and library.memory.facts_for_prompt() == ""


@pytest.mark.parametrize(("statement", "answer", "query", "needle"), [
    ("จำไว้ว่า รหัสห้องประชุมคือ 5521", "รับทราบ", "รหัสห้องประชุม", "5521"),
    ("تذكر أن رمز غرفة الاجتماعات هو 5521", "حسنا", "رمز غرفة الاجتماعات", "5521"),
    ("Remember that the meeting room code is 5521.", "Noted.", "meeting room code", "5521"),
])
def test_thai_and_arabic_facts_and_history_are_found_like_english(library, statement, answer, query, needle):
    turns = [Turn(statement, answer)]
    chat = chat_with(library, "Room", turns)
    library.memory.save_compacted(chat, turns)
    hits = library.memory.search(query)
    assert hits[0].kind == "fact" and needle in hits[0].text
    assert any(h.kind == "history" and needle in h.text for h in hits)
    assert needle in library.memory.facts_for_prompt()
    recall = library.memory.recall(ChatSessions(library.store).create_chat("x"), [query])
    assert recall.excerpts and needle in recall.excerpts[0].text


def test_unified_search_reaches_documents_too(library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ops.txt").write_text("The production database backup runs nightly at 02:00.", encoding="utf-8")
    library.add_folder(docs)
    library.sync()
    turns = [Turn("When does the database backup run?", "The database backup runs nightly at 02:00.")]
    chat = chat_with(library, "Backups", turns)
    library.memory.save_compacted(chat, turns)
    kinds = {h.kind for h in library.memory.search("database backup", scope="all")}
    assert kinds == {"history", "document"}
    assert {h.kind for h in library.memory.search("database backup", scope="documents")} == {"document"}


def trove(home, *args):
    env = {**os.environ, "TROVE_EMBEDDER": "hash", "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "desktop_app", "--home", str(home), *args],
                          capture_output=True, text=True, env=env, timeout=300)


def test_cli(tmp_path):
    home = tmp_path / "home"
    assert trove(home, "memory", "add", "editor", "neovim").stdout.strip() == "added: editor → neovim"
    assert trove(home, "memory", "add", "preferred_editor", "helix").stdout.strip() == \
        "corrected: editor → helix; was neovim"
    listed = json.loads(trove(home, "memory", "list", "--all", "--json").stdout)
    assert [(f["value"], f["superseded_by"] is not None) for f in listed] == [("helix", False), ("neovim", True)]
    found = json.loads(trove(home, "memory", "search", "editor", "--json").stdout)
    assert [(h["kind"], h["outdated"]) for h in found] == [("fact", False), ("fact", True)]
    via_search = json.loads(trove(home, "search", "editor", "--scope", "memory", "--json").stdout)
    assert via_search == found
    assert "memory is off" in trove(home, "memory", "off").stdout
    assert json.loads(trove(home, "memory", "search", "editor", "--json").stdout) == []
    trove(home, "memory", "on")
    assert trove(home, "memory", "forget", "editor").stdout.strip() == "forgot editor → helix"  # and its old value
    assert trove(home, "memory", "forget").returncode == 2
    assert "no facts remembered" in trove(home, "memory", "list").stdout
