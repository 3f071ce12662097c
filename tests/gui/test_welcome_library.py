"""The welcome state says what the library holds (its size, formats and languages, from Library.stats()) and offers
"Share this library with a team…", which opens Settings, where the team library and its invite are."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402

from desktop_app.ui.chat.welcome import WelcomeView, library_line  # noqa: E402
from tests.gui.gui_helpers import SAMPLE_DOCS, add_and_sync  # noqa: E402


def test_the_library_line_names_the_count_and_the_languages():
    assert library_line({"documents": 0, "languages": []}) == ""
    one = library_line({"documents": 1, "languages": [["en", 3], ["und", 9]]})
    assert one == "Your library: 1 document, in English."
    six = [[code, 1] for code in ("en", "th", "zh", "ar", "ja", "ko")]
    line = library_line({"documents": 7, "languages": six})
    assert line.startswith("Your library: 7 documents, in English, Thai, Chinese, Arabic and 2 more"), line
    assert library_line({"documents": 2, "languages": [["und", 4]]}) == "Your library: 2 documents."


def test_the_library_line_names_the_formats_most_first():
    stats = {"documents": 7, "languages": [["en", 9]],
             "formats": [["markdown", 3], ["text", 2], ["html", 1], ["pdf", 1], ["memory", 4]]}  # not a file format
    assert library_line(stats) == "Your library: 7 documents (3 Markdown, 2 Text, 1 HTML and 1 PDF), in English."
    one = {"documents": 1, "languages": [], "formats": [["docx", 1]]}
    assert library_line(one) == "Your library: 1 document (1 Word)."
    many = {"documents": 6, "formats": [[k, 1] for k in ("pdf", "docx", "xlsx", "pptx", "epub", "csv")]}
    assert library_line(many) == "Your library: 6 documents (1 PDF, 1 Word, 1 Excel, 1 PowerPoint and 2 more)."


def test_the_welcome_state_shows_the_sample_librarys_languages_and_offers_the_team(qtbot, window, sample_folder,
                                                                                    monkeypatch):
    welcome = window.chat_pane.welcome
    assert not welcome.library.isVisibleTo(welcome)  # nothing indexed yet: no line
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)
    formats = "(3 Markdown, 2 Text, 1 HTML and 1 PDF)"  # resources/sample_docs, by count, then by name
    qtbot.waitUntil(lambda: welcome.library.text().startswith(f"Your library: {SAMPLE_DOCS} documents {formats}, in "),
                    timeout=30_000)
    assert window.library.stats()["formats"] == [["markdown", 3], ["text", 2], ["html", 1], ["pdf", 1]]
    assert "English" in welcome.library.text() and welcome.library.isVisibleTo(welcome)
    assert welcome.library.textFormat() == Qt.TextFormat.PlainText
    opened = []
    monkeypatch.setattr("desktop_app.ui.window.menus.SettingsDialog.exec", lambda dialog: opened.append(dialog) or 0)
    assert welcome.team.text() == "Share this library with a team…"
    qtbot.mouseClick(welcome.team, Qt.MouseButton.LeftButton)
    assert len(opened) == 1 and hasattr(opened[0], "invite")  # Settings, with the team library's invite field


def test_a_bare_welcome_view_emits_team_requested(qtbot):
    view = WelcomeView()
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.team_requested, timeout=1000):
        view.team.click()
