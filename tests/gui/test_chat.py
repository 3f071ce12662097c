"""The chat pane with a scripted model (deterministic answers): streaming, Stop, chats, citations, safe rendering.
The real SmolLM2 in the pane is tested in test_chat_real_model.py (what any CPU must do, not its wording)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop_app.core.chat.answer.context import Passage
from desktop_app.core.chat.answer.gate.citations import Citation
from desktop_app.core.chat.models.files import bundled_model_path
from desktop_app.core.chat.service import ChatService
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from desktop_app.ui.chat.answer_view import WRITING  # the line between the quote and the streamed answer
from desktop_app.ui.safe_document import image_fragments
from tests.gui.gui_helpers import SAMPLE_DOCS, add_and_sync
from tests.support.scripted import ScriptedRuntime

ANSWER_TIMEOUT_MS = 30_000
VENUS = ("Venus is the hottest planet because its thick carbon dioxide atmosphere traps heat [1]. "
         "Its surface is about 465 degrees Celsius.")


@pytest.fixture
def settings() -> Settings:
    return Settings(embedder="hash", answer_reserve_tokens=96, n_ctx=1024, max_context_tokens=320, context_top_k=3)


@pytest.fixture
def scripted() -> ScriptedRuntime:
    return ScriptedRuntime(VENUS, n_ctx=1024, token_delay=0.02)


@pytest.fixture
def library(tmp_path, settings, scripted):
    lib = Library(tmp_path / "home", settings=settings)
    lib._chat = ChatService(lib.store, lib._retrieve_for_chat, lambda: lib.settings,
                            runtime_factory=lambda s, p: scripted)
    yield lib
    lib.close()


@pytest.fixture
def chat_window(qtbot, window, sample_folder):
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)
    return window


def test_an_answer_streams_into_the_transcript_and_is_kept_as_a_chat(qtbot, chat_window, scripted):
    pane = chat_window.chat_pane
    qtbot.waitUntil(lambda: "SmolLM2" in pane.model_label.text(), timeout=10_000)  # the model file the settings name
    assert "MB" in pane.model_label.text()
    partial: list[str] = []
    pane.transcript.textChanged.connect(lambda: pane.busy and partial.append(pane.transcript.toPlainText()))
    with qtbot.waitSignal(pane.answer_finished, timeout=ANSWER_TIMEOUT_MS) as done:
        pane.input.setPlainText("Why is Venus the hottest planet?")
        qtbot.mouseClick(pane.send_button, Qt.MouseButton.LeftButton)
        assert pane.stop_button.isEnabled() and not pane.send_button.isEnabled()
    answer = done.args[0]
    assert not answer.cancelled and answer.generation == VENUS and answer.text.endswith(VENUS)  # after the quote
    assert pane.tokens_received == len(VENUS.split())
    # the answer was on screen before it was finished: some render while streaming showed a beginning of it (below
    # the quote, which is shown first and may be longer than the whole answer)
    streamed = [t.split(WRITING, 1)[1].strip() for t in partial if WRITING in t]
    assert any(t and len(t) < len(VENUS) and VENUS.startswith(t) for t in streamed)
    final = pane.transcript.toPlainText()
    assert "Why is Venus the hottest planet?" in final and "465 degrees Celsius" in final
    assert "Venus" in scripted.sent[-1][-1]["content"]  # the passages reached the prompt
    assert answer.passages and pane.sources.list.count() == len(answer.passages)
    assert not pane.stop_button.isEnabled() and pane.send_button.isEnabled()
    qtbot.waitUntil(lambda: pane.chats.count() == 1, timeout=5000)
    # a new chat clears the transcript; the past chat comes back from the list
    qtbot.mouseClick(pane.new_button, Qt.MouseButton.LeftButton)
    assert "Venus" not in pane.transcript.toPlainText()
    item = pane.chats.item(0)
    pane.chats.itemClicked.emit(item)
    qtbot.waitUntil(lambda: "Why is Venus the hottest planet?" in pane.transcript.toPlainText(), timeout=5000)
    assert pane.chat_id == answer.chat_id


def test_stop_ends_a_streaming_answer(qtbot, chat_window, scripted):
    scripted.reply = "planet " * 90
    scripted.token_delay = 0.05
    pane = chat_window.chat_pane
    with qtbot.waitSignal(pane.answer_finished, timeout=ANSWER_TIMEOUT_MS) as done:
        pane.ask("Write a long, detailed essay about every planet of the Solar System, one by one.")
        qtbot.waitUntil(lambda: pane.tokens_received >= 3, timeout=ANSWER_TIMEOUT_MS)
        qtbot.mouseClick(pane.stop_button, Qt.MouseButton.LeftButton)
    answer = done.args[0]
    assert answer.cancelled
    assert answer.completion_tokens < 90  # stopped well before the scripted answer ran out
    assert "stopped" in pane.transcript.toPlainText()
    assert pane.send_button.isEnabled() and not pane.stop_button.isEnabled()


def _store_chat(library, question: str, answer: str, passages: list[Passage]) -> int:
    chat = library.chat
    chat_id = chat.new_chat()
    cited = [Citation(p.n, p.source, p.page, p.chunk_id, p.content[:50]) for p in passages if f"[{p.n}]" in answer]
    chat.store.add_exchange(chat_id, question, answer, cited, passages)
    return chat_id


def test_a_citation_click_selects_its_passage_and_opens_the_page(qtbot, chat_window, sample_folder, opened):
    pane = chat_window.chat_pane
    pdf = str((sample_folder / "solar-system.pdf").resolve())
    passages = [Passage(1, "Venus is the hottest planet, about 465 degrees Celsius.", pdf, page=2, chunk_id=6),
                Passage(2, "Sourdough bread is leavened by a starter.", str(sample_folder / "sourdough-bread.html"))]
    chat_id = _store_chat(chat_window.library, "Which planet is hottest?", "Venus is the hottest [1].", passages)
    pane.open_chat(chat_id)
    qtbot.waitUntil(lambda: "Venus is the hottest" in pane.transcript.toPlainText(), timeout=5000)
    assert pane.sources.current_passage() is None
    cursor = pane.transcript.document().find("[1]")
    assert not cursor.isNull()
    pos = pane.transcript.cursorRect(cursor).center()
    pos.setX(pos.x() - 3)  # inside the marker, not just after it
    assert pane.transcript.anchorAt(pos) == "cite:0:1"
    with qtbot.waitSignal(pane.sources.passage_selected, timeout=2000) as selected:
        qtbot.mouseClick(pane.transcript.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert selected.args == [1]
    assert pane.sources.preview.toPlainText() == passages[0].content
    assert pane.sources.list.currentItem().text() == "[1] p. 2 · solar-system.pdf"
    qtbot.mouseClick(pane.sources.open_button, Qt.MouseButton.LeftButton)
    assert opened.calls == [(pdf, 2)]


def test_html_in_answers_and_passages_renders_as_text(qtbot, chat_window, tmp_path):
    image = tmp_path / "x.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n")
    hostile = f'<img src="{image.as_uri()}"> <b>x</b> ![pic]({image.as_uri()}) [1]'
    passages = [Passage(1, f"passage <img src=\"{image.as_uri()}\"> <script>alert(1)</script>", str(image))]
    chat_id = _store_chat(chat_window.library, f"question <img src=\"{image.as_uri()}\">", hostile, passages)
    pane = chat_window.chat_pane
    pane.open_chat(chat_id)
    qtbot.waitUntil(lambda: "<b>x</b>" in pane.transcript.toPlainText(), timeout=5000)
    text = pane.transcript.toPlainText()
    assert text.count("<img") == 2 and "![pic]" in text  # question and answer: shown, not rendered
    assert image_fragments(pane.transcript.document()) == 0
    pane.transcript.grab()  # lay out and paint: still nothing is loaded
    assert pane.transcript.blocked_resources == []
    pane.sources.select(1)
    assert "<img" in pane.sources.preview.toPlainText()


def test_picking_another_model_file_updates_the_label(qtbot, chat_window, tmp_path):
    pane = chat_window.chat_pane
    missing = tmp_path / "nowhere.gguf"
    with qtbot.waitSignal(pane.model_changed, timeout=5000):
        pane.set_model_path(str(missing))
    qtbot.waitUntil(lambda: pane.model_label.text() == "Model: none", timeout=5000)
    assert "not found" in pane.model_label.toolTip()
    assert chat_window.library.settings.model_path == str(missing)
    with qtbot.waitSignal(pane.model_changed, timeout=5000):
        pane.set_model_path(str(bundled_model_path()))
    qtbot.waitUntil(lambda: "SmolLM2" in pane.model_label.text(), timeout=5000)


def _search(qtbot, window, text: str) -> int:
    panel = window.search_panel
    panel.query.setText(text)
    with qtbot.waitSignal(panel.results_shown, timeout=10_000, check_params_cb=lambda q, n: q == text) as shown:
        panel.search_now()
    return shown.args[1]


def test_ask_about_selected_results_limits_the_chat_to_their_files(qtbot, chat_window, scripted, sample_folder):
    pane, panel = chat_window.chat_pane, chat_window.search_panel
    assert _search(qtbot, chat_window, "planet bread") >= 2
    files = list(dict.fromkeys(r.source for r in panel.model.results()))
    assert len(files) >= 2
    rows = [next(i for i, r in enumerate(panel.model.results()) if r.source == f) for f in files[:2]]
    selection = panel.view.selectionModel()
    selection.clear()
    for row in rows:
        selection.select(panel.model.index(row), selection.SelectionFlag.Select)
    menu = chat_window.result_chat_actions.menu()
    ask, summarise = menu.actions()
    assert ask.text() == "Ask about these 2 files" and not summarise.isEnabled()
    ask.trigger()
    assert pane.scope == tuple(files[:2]) and pane.scope_label.isVisibleTo(pane)
    assert pane.scope_label.text().startswith("Asking about: ")
    with qtbot.waitSignal(pane.answer_finished, timeout=ANSWER_TIMEOUT_MS) as done:
        pane.ask("What is hottest, and how is bread leavened?")
    assert {p.source for p in done.args[0].passages} <= set(files[:2])
    qtbot.mouseClick(pane.scope_clear, Qt.MouseButton.LeftButton)
    assert pane.scope == () and not pane.scope_label.isVisibleTo(pane)


def test_ask_about_a_folder_from_its_menu(qtbot, chat_window, sample_folder):
    panel, pane = chat_window.folders_panel, chat_window.chat_pane
    path = str(sample_folder.resolve())
    action = next(a for a in panel.context_menu(path).actions() if a.text() == "Ask about this folder")
    with qtbot.waitSignal(pane.scope_changed, timeout=2000):
        action.trigger()
    assert pane.scope == (path,) and "docs/" in pane.scope_label.text()


def test_summarise_a_result_shows_progress_then_the_summary(qtbot, chat_window, scripted, sample_folder):
    scripted.reply = "Venus is the hottest planet."
    pane, panel = chat_window.chat_pane, chat_window.search_panel
    assert _search(qtbot, chat_window, "Venus") >= 1
    panel.view.setCurrentIndex(panel.model.index(0))
    path = panel.model.result(0).source
    menu = chat_window.result_chat_actions.menu()
    summarise = menu.actions()[1]
    assert menu.actions()[0].text() == "Ask about this file" and summarise.isEnabled()
    with qtbot.waitSignal(pane.summary_finished, timeout=ANSWER_TIMEOUT_MS) as done:
        summarise.trigger()
        assert pane.busy and pane.stop_button.isEnabled()
    summary = done.args[0]
    assert summary.path == path and summary.text == "Venus is the hottest planet." and not summary.cancelled
    text = pane.transcript.toPlainText()
    assert f"Summarise {Path(path).name}" in text and "Venus is the hottest planet." in text
    assert "model calls" in text and not pane.busy


def test_an_arabic_answer_and_its_passage_read_right_to_left(qtbot, chat_window, sample_folder):
    arabic = "تحفظ المكتبة الرقمية الوثائق على القرص [1]."
    passages = [Passage(1, "المكتبة الرقمية تحفظ الوثائق على القرص.", str(sample_folder / "notes.txt")),
                Passage(2, "Venus is the hottest planet.", str(sample_folder / "solar-system.pdf"))]
    pane = chat_window.chat_pane
    pane.open_chat(_store_chat(chat_window.library, "أين تحفظ الوثائق؟", arabic, passages))
    qtbot.waitUntil(lambda: "المكتبة الرقمية" in pane.transcript.toPlainText(), timeout=5000)
    document = pane.transcript.document()
    blocks = [document.findBlockByNumber(i) for i in range(document.blockCount())]
    answer = next(b for b in blocks if "المكتبة" in b.text())
    english = next(b for b in blocks if b.text().strip() in ("You", "Trove"))
    assert answer.textDirection() == Qt.LayoutDirection.RightToLeft
    assert english.textDirection() == Qt.LayoutDirection.LeftToRight
    pane.sources.select(1)
    option = pane.sources.preview.document().defaultTextOption()
    assert option.textDirection() == Qt.LayoutDirection.RightToLeft
    assert pane.sources.preview.layoutDirection() == Qt.LayoutDirection.RightToLeft
    pane.sources.preview.grab()  # lay it out: the first line ends at the right edge
    line = pane.sources.preview.document().firstBlock().layout().lineAt(0).naturalTextRect()
    assert line.right() > pane.sources.preview.viewport().width() - 20
    pane.sources.select(2)
    assert pane.sources.preview.document().defaultTextOption().textDirection() == Qt.LayoutDirection.LeftToRight
