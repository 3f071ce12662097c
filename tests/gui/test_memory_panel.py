
"""The Memory panel, offscreen, over a real library (SQLite, the fast embedder): opened from the Chat menu, list,
search, edit, forget one, turn memory off, forget all; and a chat answer whose Sources show a fact and a past
chat's excerpt as memory (a scripted model). Screenshots go to docs/screenshots with
TROVE_SCREENSHOTS=docs/screenshots."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from desktop_app.core.chat.answer.memory_step import is_memory
from desktop_app.core.chat.service import ChatService
from desktop_app.ui.chat.sources_panel import passage_label
from tests.gui.gui_helpers import SAMPLE_DOCS, add_and_sync
from tests.support.scripted import ScriptedRuntime, last_user

# a test run never rewrites the repository: TROVE_SCREENSHOTS=docs/screenshots saves the pictures the docs show
SCREENSHOTS = Path(os.environ.get("TROVE_SCREENSHOTS") or Path(tempfile.gettempdir()) / "trove-screenshots")
DECISION = "We decided the staging server listens on port 8099 from now on."


def reply(messages) -> str:
    question = last_user(messages).rsplit("Question:", 1)[-1].lower()
    if "which port" in question:
        return DECISION
    return "We decided the staging server listens on port 8099 from now on [2]. It runs on stage-2.internal [1]."


@pytest.fixture
def scripted(library) -> ScriptedRuntime:
    rt = ScriptedRuntime(reply, n_ctx=2048)
    library._chat = ChatService(library.store, library._retrieve_for_chat, lambda: library.settings,
                                runtime_factory=lambda s, p: rt, quote_selector=None, reranker=None,
                                memory=lambda: library.memory)
    return rt


def menu_action(window, text):
    for action in window.menuBar().actions():
        for sub in action.menu().actions() if action.menu() else []:
            if sub.text().replace("&", "") == text:
                return sub
    raise AssertionError(f"no menu action {text!r}")


def test_the_memory_panel_lists_searches_edits_forgets_and_turns_memory_off(qtbot, window, library):
    memory = library.memory
    memory.add("editor", "neovim", confidence=0.9)
    memory.add("staging_port", "8099")
    memory.add("preferred_language", "British English")
    menu_action(window, "Memory…").trigger()
    panel = window.memory_panel
    qtbot.waitUntil(lambda: panel.table.rowCount() == 3, timeout=10_000)
    shown = {panel.table.item(r, 0).text(): panel.table.item(r, 1).text() for r in range(3)}
    assert shown == {"editor": "neovim", "staging_port": "8099", "preferred_language": "British English"}
    assert panel.table.item([*shown].index("editor"), 2).text() == "90%"
    panel.query.setText("staging port")
    panel.search()
    qtbot.waitUntil(lambda: panel.results.count() > 0, timeout=10_000)
    assert panel.results.item(0).text().startswith("fact staging_port, today\nstaging port: 8099")
    assert panel.table.item(0, 4).text() == "you"
    panel.resize(760, 560)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(100)
    assert panel.grab().save(str(SCREENSHOTS / "memory-panel.png"), "PNG")
    # edit: a correction (the old value stays, outdated)
    panel.table.selectRow([panel.table.item(r, 0).text() for r in range(3)].index("editor"))
    panel.edit_selected("helix")
    qtbot.waitUntil(lambda: any(f.value == "helix" for f in panel.facts), timeout=10_000)
    assert [f.value for f in memory.list() if f.key == "editor"] == ["helix"]
    assert "neovim" in [f.value for f in memory.list(include_outdated=True) if f.outdated]
    # forget one
    panel.table.selectRow([f.key for f in panel.facts].index("staging_port"))
    panel.forget_selected()
    qtbot.waitUntil(lambda: panel.table.rowCount() == 2, timeout=10_000)
    assert all(f.key != "staging_port" for f in memory.list())
    qtbot.waitUntil(lambda: not any("8099" in panel.results.item(i).text() for i in range(panel.results.count())),
                    timeout=10_000)  # the search shown follows
    # off: stored, but in no search or prompt
    panel.on_box.setChecked(False)
    qtbot.waitUntil(lambda: not memory.enabled and "memory is off" in panel.status.text(), timeout=10_000)
    assert memory.facts_for_prompt() == "" and memory.search("editor") == []
    panel.on_box.setChecked(True)
    qtbot.waitUntil(lambda: memory.enabled and "memory is off" not in panel.status.text(), timeout=10_000)
    panel.forget_all()
    qtbot.waitUntil(lambda: panel.table.rowCount() == 0, timeout=10_000)
    assert memory.list() == [] and not panel.buttons["forget_all"].isEnabled()


def test_an_answers_sources_show_a_fact_as_evidence_and_a_past_chat_as_context(qtbot, window, library, scripted,
                                                                                sample_folder):
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)  # the chat pane shows once a folder is there
    first = library.ask("Which port should the staging server listen on?", use_context=False)
    library.memory.add("staging_server", "stage-2.internal")
    pane = window.chat_pane
    pane.chat = library.chat  # the scripted model (the window was made before it)
    window.resize(1400, 860)
    with qtbot.waitSignal(pane.answer_finished, timeout=60_000) as done:
        pane.ask("What did we decide about the staging server port?")
    answer = done.args[0]
    memory = [p for p in answer.passages if is_memory(p)]
    assert [p.kind for p in memory] == ["fact"] and all(p.kind == "document" for p in answer.passages[1:])
    assert memory[0].place.startswith("fact staging_server, today") and "stage-2.internal" in memory[0].content
    assert not [p for p in answer.passages if "8099" in p.content]  # the past chat is no passage
    [context] = [m for m in answer.memory if m.get("context")]
    assert context["provenance"]["chat_id"] == first.chat_id and "n" not in context
    labels = [pane.sources.list.item(i).text() for i in range(pane.sources.list.count())]
    assert passage_label(memory[0]) in labels and labels[0].startswith("[1] Memory · fact")
    assert labels[-1] == f"Conversation · {context['label']} (memory, not cited)"
    pane.sources.list.setCurrentRow(len(labels) - 1)
    assert not pane.sources.open_button.isEnabled() and not pane.sources.open_current()  # no file behind it
    assert "8099" in pane.sources.preview.toPlainText()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(200)
    assert window.grab().save(str(SCREENSHOTS / "chat-memory-sources.png"), "PNG")


def ask_in_pane(qtbot, pane, question):
    with qtbot.waitSignal(pane.answer_finished, timeout=60_000) as done:
        pane.ask(question)
    return done.args[0]


def test_a_remember_request_in_the_window_is_acknowledged_without_the_model(qtbot, window, library, scripted,
                                                                           sample_folder):
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)
    pane = window.chat_pane
    pane.chat = library.chat
    answer = ask_in_pane(qtbot, pane, "Remember that my locker code is 4417.")
    assert answer.text == "Remembered: locker code → 4417." and not answer.refused
    qtbot.waitUntil(lambda: "Remembered: locker code → 4417." in pane.transcript.toPlainText(), timeout=10_000)
    assert scripted.sent == [] and [(f.key, f.value) for f in library.memory.list()] == [("locker_code", "4417")]


def test_the_memory_panel_forgets_by_a_word_or_names_the_keys(qtbot, window, library):
    library.memory.remember("Remember that my locker code is 4417.")
    library.memory.add("editor", "neovim")
    menu_action(window, "Memory…").trigger()
    panel = window.memory_panel
    qtbot.waitUntil(lambda: panel.table.rowCount() == 2, timeout=10_000)
    panel.forget_word("cupboard")
    qtbot.waitUntil(lambda: "no fact matches" in panel.status.text(), timeout=10_000)
    assert "the keys are: editor, locker_code" in panel.status.text() and panel.table.rowCount() == 2
    panel.forget_word("locker")
    qtbot.waitUntil(lambda: panel.table.rowCount() == 1, timeout=10_000)
    qtbot.waitUntil(lambda: "forgot locker_code → 4417" in panel.status.text(), timeout=10_000)
    assert [f.key for f in library.memory.list()] == ["editor"]


def test_after_forget_all_in_the_panel_the_next_question_cannot_show_the_old_turn(qtbot, window, library, scripted,
                                                                                sample_folder):
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)
    pane = window.chat_pane
    pane.chat = library.chat
    said = ask_in_pane(qtbot, pane, "Remember that my locker code is 4417.")
    menu_action(window, "Memory…").trigger()
    panel = window.memory_panel
    qtbot.waitUntil(lambda: panel.table.rowCount() == 1, timeout=10_000)
    panel.forget_all()
    qtbot.waitUntil(lambda: panel.table.rowCount() == 0, timeout=10_000)
    pane.new_chat()
    answer = ask_in_pane(qtbot, pane, "What is my locker code?")
    shown = [answer.text, *(c.snippet for c in answer.citations), *(p.content for p in answer.passages)]
    assert not [t for t in shown if "4417" in t or "Remember that" in t or "[turn" in t]
    assert not [m for m in answer.memory if "4417" in str(m.get("text", ""))]
    assert library.memory.chunk_sql.chat_chunks(said.chat_id) == []  # the quiet chat was not saved again
