"""The first run that teaches: the chat's welcome state (three questions from the library; clicking one asks it,
with a scripted runtime), the model note and its link to the Models dialog, the search box's empty state, Help →
About (where things live, selectable) and Help → Keyboard shortcuts (every menu shortcut, and the sample's)."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from desktop_app.core.chat.service import ChatService
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from desktop_app.resources import sample_docs_dir
from desktop_app.ui.dialogs.about import AboutDialog, ShortcutsDialog, menu_shortcuts
from desktop_app.ui.log_file import log_path
from tests.gui.gui_helpers import SAMPLE_DOCS, add_and_sync
from tests.support.scripted import ScriptedRuntime

ANSWER = "Planets orbit the Sun [1]."


@pytest.fixture
def settings() -> Settings:
    return Settings(embedder="hash", answer_reserve_tokens=96, n_ctx=1024, max_context_tokens=320, context_top_k=3)


@pytest.fixture
def scripted() -> ScriptedRuntime:
    return ScriptedRuntime(ANSWER, n_ctx=1024)


@pytest.fixture
def library(tmp_path, settings, scripted):
    lib = Library(tmp_path / "home", settings=settings)
    lib._chat = ChatService(lib.store, lib._retrieve_for_chat, lambda: lib.settings,
                            runtime_factory=lambda s, p: scripted)
    yield lib
    lib.close()


def test_the_welcome_state_offers_three_questions_from_the_library_and_one_click_asks(
        qtbot, window, sample_folder, scripted):
    pane = window.chat_pane
    assert pane.talk.currentWidget() is pane.welcome and pane.welcome.buttons == []  # nothing indexed yet
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)
    expected = [s.question for s in window.library.suggested_questions()]
    assert len(expected) == 3
    # drawn again once the document count settles (maybe also earlier, from the files indexed by then)
    qtbot.waitUntil(lambda: [b.question for b in pane.welcome.buttons] == expected, timeout=30_000)
    buttons = pane.welcome.buttons
    qtbot.waitUntil(lambda: all(b.isVisible() for b in buttons), timeout=5000)  # shown at the next event loop turn
    titles = {"The Solar System", "Trove quick start", "A simple sourdough loaf", "How Trove's hybrid search works",
              "Python virtual environments in five minutes", "keyboard shortcuts"}
    assert any(any(t in b.question for t in titles) for b in buttons)  # drawn from the library's own titles
    for b in buttons:  # the whole question shows: its wrapped text fits the label it is in
        assert b.label.heightForWidth(b.label.width()) <= b.label.height()
    assert window.search_panel.hint.example == window.library.suggested_questions()[0].term  # the search's example

    # The first asks one document about its term: the question reaches the model. (The second, "What do my documents
    # say about …?", may be answered by quotes from several documents without the model: chat/answer/span/step.py.)
    with qtbot.waitSignal(pane.answer_finished, timeout=30_000):
        with qtbot.waitSignal(pane.answer_started, timeout=5000) as started:
            qtbot.mouseClick(buttons[0], Qt.MouseButton.LeftButton)
    assert started.args == [expected[0]]
    assert expected[0] in scripted.sent[-1][-1]["content"]  # the question reached the model
    assert pane.talk.currentWidget() is pane.transcript and expected[0] in pane.transcript.toPlainText()
    pane.new_chat()
    assert pane.talk.currentWidget() is pane.welcome and len(pane.welcome.buttons) == 3
    with qtbot.waitSignal(pane.answer_finished, timeout=30_000):
        with qtbot.waitSignal(pane.answer_started, timeout=5000) as started:
            qtbot.mouseClick(pane.welcome.buttons[1], Qt.MouseButton.LeftButton)
    assert started.args == [expected[1]] and expected[1] in pane.transcript.toPlainText()


def test_the_model_note_names_the_model_and_its_link_opens_the_models_dialog(qtbot, window):
    pane = window.chat_pane
    qtbot.waitUntil(lambda: pane.welcome.note.text().startswith(("Answers come from", "No chat model")), timeout=10_000)
    info = window.library.chat.model_info()
    assert info.name in pane.welcome.note.text()
    assert pane.welcome.note.textFormat() == Qt.TextFormat.PlainText
    qtbot.mouseClick(pane.welcome.better, Qt.MouseButton.LeftButton)
    dialog = window.models_dialog
    assert dialog.isVisible() and dialog.downloading() is False  # the catalog is shown; nothing is fetched
    assert dialog.catalog_table.rowCount() > 0
    dialog.hide()


def test_a_title_that_looks_like_html_is_shown_as_written(qtbot, window, tmp_path):
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "<b>bold<b> & co.txt").write_text("Kiwis kiwis kiwis grow on vines. " * 3, encoding="utf-8")
    add_and_sync(qtbot, window, folder, 1)
    qtbot.waitUntil(lambda: bool(window.chat_pane.welcome.buttons), timeout=30_000)
    button = window.chat_pane.welcome.buttons[0]
    assert "<b>bold<b> & co" in button.label.text() and button.label.textFormat() == Qt.TextFormat.PlainText


def test_the_search_box_empty_state_shows_modes_filters_and_an_example(qtbot, window, sample_folder):
    panel = window.search_panel
    assert panel.results_stack.currentWidget() is panel.hint
    shown = " ".join(label.text() for label in (panel.hint.how, panel.hint.modes, panel.hint.filters))
    for word in ("Hybrid", "Keyword", "Semantic", "folder", "file type", "language"):
        assert word in shown
    assert panel.hint.try_button.isHidden()  # no example before the library has a key term
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)
    term = window.library.suggested_questions()[0].term
    qtbot.waitUntil(lambda: panel.hint.example == term and not panel.hint.try_button.isHidden(), timeout=30_000)
    with qtbot.waitSignal(panel.results_shown, timeout=10_000, check_params_cb=lambda q, n: q == term and n):
        qtbot.mouseClick(panel.hint.try_button, Qt.MouseButton.LeftButton)
    assert panel.results_stack.currentWidget() is panel.view and panel.query.text() == term
    panel.query.clear()
    qtbot.waitUntil(lambda: panel.results_stack.currentWidget() is panel.hint, timeout=5000)


def test_about_shows_where_the_library_logs_and_models_live_as_selectable_text(qtbot, window):
    window.findChild(type(window.menuBar()))  # the menus exist
    about = next(a for a in _actions(window) if a.text() == "&About Trove")
    about.trigger()
    dialog = window.about_dialog
    assert isinstance(dialog, AboutDialog) and dialog.isVisible()
    home = str(window.library.home)
    assert dialog.fields["Library folder"].text() == home
    assert dialog.fields["Log file"].text() == str(log_path(home))
    assert dialog.fields["Downloaded models"].text().startswith(home)
    assert dialog.fields["Index"].text() == str(window.library.db_path)
    for field in dialog.fields.values():
        assert isinstance(field, QLineEdit) and field.isReadOnly()
        field.selectAll()
        assert field.selectedText() == field.text()
    dialog.close()


def test_help_keyboard_shortcuts_lists_every_menu_shortcut_and_the_samples(qtbot, window):
    shortcuts = next(a for a in _actions(window) if a.text() == "&Keyboard shortcuts")
    shortcuts.trigger()
    dialog = window.shortcuts_dialog
    assert isinstance(dialog, ShortcutsDialog) and dialog.isVisible()
    listed = {dialog.table.item(r, 0).text(): dialog.table.item(r, 1).text() for r in range(dialog.table.rowCount())}
    for act in _actions(window):
        for key in act.shortcuts():
            assert any(key.toString() in keys.split(", ") for keys in listed), key.toString()
    assert "Search → Find" in listed["Ctrl+F, Ctrl+K"]
    # every key the sample library's keyboard-shortcuts.txt names is in the menu's list
    text = (sample_docs_dir() / "keyboard-shortcuts.txt").read_text(encoding="utf-8")
    keys = set(re.findall(r"\b(?:Ctrl\+[A-Z,]|Ctrl\+Enter|Esc|Enter|F\d+)", text))
    shown = " ".join(listed)
    for key in keys:
        assert key in shown, key
    assert ("Ctrl+F, Ctrl+K", "Search → Find") in menu_shortcuts(window.menuBar())
    dialog.close()


def _actions(window):
    return [a for m in window.menuBar().actions() if m.menu() for a in m.menu().actions()]


def test_the_welcome_state_and_search_hint_follow_a_dark_palette(qtbot, window):
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication

    from tests.gui.test_chat_quote import dark_palette

    app = QApplication.instance()
    light = app.palette()
    dark = dark_palette()
    app.setPalette(dark)
    try:
        qtbot.wait(50)
        welcome, hint = window.chat_pane.welcome, window.search_panel.hint
        image = welcome.grab().toImage()
        assert image.pixelColor(image.width() // 2, image.height() // 2) == dark.color(QPalette.ColorRole.Base)
        for label, ground in ((welcome.note, welcome), (welcome.intro, welcome), (hint.modes, hint)):
            text = label.palette().color(label.foregroundRole())
            back = ground.palette().color(ground.backgroundRole())
            assert abs(text.lightness() - back.lightness()) > 80, label.objectName()  # light on dark, readable
        for link in (welcome.better, hint.try_button):  # the links take the new palette's link colour
            assert link.palette().color(QPalette.ColorRole.ButtonText) == dark.color(QPalette.ColorRole.Link)
    finally:
        app.setPalette(light)
