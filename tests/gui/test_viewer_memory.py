"""Memory items in the viewer: a double-click on a cited remembered fact in the Sources list opens the viewer on the
fact (highlighted) with the chat turn it was stated in; one on a recalled past chat's excerpt opens that chat's
turns with the excerpt's turns highlighted. A real library (SQLite, the fast embedder) and its real memory; the chat
model is scripted (tests/gui/test_memory_panel.py runs the same flow)."""

from __future__ import annotations

import pytest

from desktop_app.core.chat.answer.memory_step import is_memory
from desktop_app.core.chat.service import ChatService
from desktop_app.core.memory.facts import fact_text
from desktop_app.ui.viewer.dock import viewer_of
from tests.gui.gui_helpers import SAMPLE_DOCS, add_and_sync
from tests.support.scripted import ScriptedRuntime, last_user

DECISION = "We decided the staging server listens on port 8099 from now on."
FIRST = "Which port should the staging server listen on?"


def reply(messages) -> str:
    if "which port" in last_user(messages).rsplit("Question:", 1)[-1].lower():
        return DECISION
    return "We decided the staging server listens on port 8099 from now on [2]. It runs on stage-2.internal [1]."


@pytest.fixture
def answered(qtbot, window, library, sample_folder):
    """The window after a second answer whose Sources hold a fact (stated in the first chat's turn 1) and the first
    chat's excerpt as context."""
    rt = ScriptedRuntime(reply, n_ctx=2048)
    library._chat = ChatService(library.store, library._retrieve_for_chat, lambda: library.settings,
                                runtime_factory=lambda s, p: rt, quote_selector=None, reranker=None,
                                memory=lambda: library.memory)
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)
    first = library.ask(FIRST, use_context=False)
    library.memory.add("staging_server", "stage-2.internal", chat_id=first.chat_id, turn=1)
    pane = window.chat_pane
    pane.chat = library.chat
    window.resize(1400, 860)
    with qtbot.waitSignal(pane.answer_finished, timeout=60_000):
        pane.ask("What did we decide about the staging server port?")
    return pane.sources


def double_click(sources, row: int) -> None:
    """What the list does on a double-click (the Sources list may sit in a collapsed splitter offscreen)."""
    sources.list.setCurrentRow(row)
    sources.list.itemDoubleClicked.emit(sources.list.item(row))


def selected(viewer) -> str:
    return viewer.text.textCursor().selectedText().replace("\u2029", "\n")


def test_a_cited_fact_opens_in_the_viewer_with_the_turn_it_was_stated_in(qtbot, window, answered):
    sources = answered
    row = next(i for i in range(sources.list.count()) if sources.list.item(i).text().startswith("[1] Memory · fact"))
    assert is_memory(sources._passages[1])
    viewer = viewer_of(window)
    with qtbot.waitSignal(viewer.passage_shown, timeout=20_000) as shown:
        double_click(sources, row)
    passage = shown.args[0]
    assert selected(viewer) == fact_text("staging_server", "stage-2.internal")
    assert passage.text[passage.start:passage.end] == selected(viewer)
    text = viewer.text.toPlainText()
    assert "Stated in turn 1 of chat" in text and FIRST in text and "8099" in text  # the turn it came from
    assert viewer.title.text().startswith("Memory · fact staging_server") and "you said so" in text
    assert not viewer.system_button.isEnabled() and not viewer.open_in_system_viewer()  # no file behind it


def test_a_recalled_past_chat_opens_its_turns_with_the_excerpt_highlighted(qtbot, window, answered):
    sources = answered
    last = sources.list.count() - 1
    assert sources.list.item(last).text().startswith("Conversation · ")
    viewer = viewer_of(window)
    with qtbot.waitSignal(viewer.passage_shown, timeout=20_000) as shown:
        double_click(sources, last)
    passage = shown.args[0]
    turn = selected(viewer)
    assert turn.startswith("[turn 1]") and FIRST in turn and "8099" in turn
    assert passage.text[passage.start:passage.end] == turn and passage.path == ""
    assert viewer.title.text().startswith("Memory · chat ")
    assert viewer.text.extraSelections()  # the excerpt's turns are washed, as a passage is


def test_a_memory_item_whose_chat_is_gone_shows_what_memory_kept(qtbot, window, library):
    viewer = viewer_of(window)
    item = {"kind": "history", "text": "[turn 2] User: where is the key?\nAssistant: under the mat",
            "label": "chat 'Keys' turn 2, 2026-11-02", "provenance": {"chat_id": 999_999, "turns": [2, 2]}}
    with qtbot.waitSignal(viewer.passage_shown, timeout=20_000) as shown:
        viewer.show_memory(item)
    assert shown.args[0].text == item["text"] and selected(viewer) == item["text"]
    assert viewer.title.text() == "Memory · chat 'Keys' turn 2, 2026-11-02"
