"""Counts read as English: "1 document", "2 documents", never "1 documents", wherever the window writes one."""

from __future__ import annotations

from desktop_app.ui.library.folder_row import vectors_text
from desktop_app.ui.units import counted
from tests.gui.gui_helpers import add_and_sync, search


def test_a_count_takes_its_noun_in_the_right_number():
    assert [counted(n, "document") for n in (0, 1, 2)] == ["0 documents", "1 document", "2 documents"]
    assert counted(1, "match", "matches") == "1 match" and counted(3, "match", "matches") == "3 matches"
    assert vectors_text(0, 1) == "0 of 1 chunk has vectors" and vectors_text(2, 3) == "2 of 3 chunks have vectors"


def test_a_library_of_one_document_says_one_document(qtbot, window, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "note.txt").write_text("A single note about harbour charts and tides.", encoding="utf-8")
    add_and_sync(qtbot, window, docs, 1)
    row = next(iter(window.folders_panel._rows.values()))
    assert row.details.text() == "active · 1 document"
    welcome = window.chat_pane.welcome
    qtbot.waitUntil(lambda: welcome.library.text().startswith("Your library: 1 document (1 Text)"), timeout=30_000)
    assert len(search(qtbot, window, "harbour")) == 1
    assert window.search_panel.summary.text().startswith("1 result · ")
