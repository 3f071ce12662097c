"""The search pane: live results, newest query wins, keyboard, opening files, modes, filters, safe snippets."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop_app.ui.safe_document import SafeTextDocument, image_fragments
from desktop_app.ui.search.panel import DEBOUNCE_MS
from desktop_app.ui.search.results_model import SnippetHtmlRole
from desktop_app.ui.viewer.dock import viewer_of
from tests.gui.gui_helpers import SAMPLE_DOCS, add_and_sync, search


@pytest.fixture
def indexed(qtbot, window, sample_folder):
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)
    return window


class RecordingSearch:
    """Wraps Library.search: records every call and makes chosen queries slow."""

    def __init__(self, real, slow: dict[str, float] | None = None) -> None:
        self.real, self.slow = real, slow or {}
        self.calls: list[tuple[str, dict]] = []
        self.finished: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, query, **kwargs):
        with self.lock:
            self.calls.append((query, kwargs))
        time.sleep(self.slow.get(query, 0.0))
        results = self.real(query, **kwargs)
        with self.lock:
            self.finished.append(query)
        return results


def test_typing_searches_once_after_a_short_pause(qtbot, indexed):
    panel = indexed.search_panel
    spy = panel.search_fn = RecordingSearch(panel.search_fn)
    assert DEBOUNCE_MS <= 150
    panel.query.setFocus()
    with qtbot.waitSignal(panel.results_shown, timeout=5000, check_params_cb=lambda q, n: q == "olympus mons"):
        qtbot.keyClicks(panel.query, "olympus mons")
    assert [q for q, _ in spy.calls] == ["olympus mons"]  # a burst of keys costs one search
    top = panel.model.result(0)
    assert top.source.endswith("solar-system.pdf") and top.metadata["page"] == 2
    assert panel.model.data(panel.model.index(0)) == "solar-system.pdf"


def test_a_slow_older_query_never_overwrites_a_newer_one(qtbot, indexed):
    panel = indexed.search_panel
    spy = panel.search_fn = RecordingSearch(panel.search_fn, slow={"sourdough": 1.0})
    panel.query.setText("sourdough")
    old = panel.search_now()
    panel.query.setText("volcano")
    with qtbot.waitSignal(panel.results_shown, timeout=5000) as shown:
        new = panel.search_now()
    assert new > old and shown.args[0] == "volcano"
    qtbot.waitUntil(lambda: "sourdough" in spy.finished, timeout=5000)  # the old answer arrives late...
    qtbot.waitUntil(lambda: indexed.tasks.pending() == 0, timeout=5000)
    assert panel.stale_dropped == 1  # ...and is dropped
    sources = {Path(r.source).name for r in panel.model.results()}
    assert sources == {"solar-system.pdf"}
    assert all("volcano" in r.content.lower() for r in panel.model.results())


def test_enter_opens_the_selected_pdf_at_its_page(qtbot, indexed, opened):
    panel = indexed.search_panel
    search(qtbot, indexed, "Olympus Mons volcano")
    panel.query.setFocus()
    qtbot.keyClick(panel.query, Qt.Key.Key_Down)
    assert panel.view.hasFocus() and panel.view.currentIndex().row() == 0
    with qtbot.waitSignal(viewer_of(indexed).page_shown, timeout=20_000) as shown:  # Enter: the viewer pane
        qtbot.keyClick(panel.view, Qt.Key.Key_Return)
    assert shown.args[0].path.endswith("solar-system.pdf") and shown.args[0].page == 2 and opened.calls == []
    qtbot.keyClick(panel.view, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)  # Shift+Enter: the system's
    qtbot.keyRelease(panel.view, Qt.Key.Key_Shift)  # the platform's modifier state, not held into later tests
    assert len(opened.calls) == 1
    path, page = opened.calls[0]
    assert path.endswith("solar-system.pdf") and page == 2


def test_arrow_keys_move_between_box_and_results_and_esc_clears(qtbot, indexed, opened):
    panel = indexed.search_panel
    results = search(qtbot, indexed, "planet")
    assert len(results) >= 2
    panel.query.setFocus()
    qtbot.keyClick(panel.query, Qt.Key.Key_Down)
    qtbot.keyClick(panel.view, Qt.Key.Key_Down)
    assert panel.view.currentIndex().row() == 1
    qtbot.keyClick(panel.view, Qt.Key.Key_Enter, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyRelease(panel.view, Qt.Key.Key_Shift)
    assert opened.calls[-1][0] == results[1].source
    qtbot.keyClick(panel.view, Qt.Key.Key_Up)
    qtbot.keyClick(panel.view, Qt.Key.Key_Up)
    assert panel.query.hasFocus()
    with qtbot.waitSignal(panel.results_shown, timeout=2000, check_params_cb=lambda q, n: q == "" and n == 0):
        qtbot.keyClick(panel.query, Qt.Key.Key_Escape)
    assert panel.query.text() == "" and panel.model.rowCount() == 0


def test_double_click_opens_a_result(qtbot, indexed, opened):
    panel = indexed.search_panel
    search(qtbot, indexed, "stretch and folds")
    rect = panel.view.visualRect(panel.model.index(0))
    # QTest's double-click is only a "DblClick" event; item views also want the press/release before it
    qtbot.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    with qtbot.waitSignal(viewer_of(indexed).passage_shown, timeout=20_000) as shown:  # the viewer pane
        qtbot.mouseDClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert shown.args[0].chunk_text == panel.model.result(0).content and opened.calls == []


@pytest.mark.parametrize("key", [Qt.Key.Key_F, Qt.Key.Key_K])
def test_shortcuts_focus_the_search_box(qtbot, indexed, key):
    indexed.activateWindow()
    qtbot.waitUntil(indexed.isActiveWindow, timeout=2000)  # shortcuts go to the active window only
    chat_input = indexed.chat_pane.input
    chat_input.setFocus()
    assert not indexed.search_panel.query.hasFocus()
    qtbot.keyClick(chat_input, key, Qt.KeyboardModifier.ControlModifier)
    assert indexed.search_panel.query.hasFocus()


def test_mode_and_filters_reach_the_library(qtbot, indexed, sample_folder):
    panel = indexed.search_panel
    spy = panel.search_fn = RecordingSearch(panel.search_fn)
    everything = search(qtbot, indexed, "search bar")
    assert {r.metadata["type"] for r in everything} > {"markdown"}  # the filter has something to remove
    assert spy.calls[-1][1]["mode"] == "hybrid"
    with qtbot.waitSignal(panel.results_shown, timeout=5000):
        panel.mode.setCurrentIndex(panel.mode.findData("keyword"))
    assert spy.calls[-1][1]["mode"] == "keyword"
    with qtbot.waitSignal(panel.results_shown, timeout=5000):
        panel.type_filter.setCurrentIndex(panel.type_filter.findData("markdown"))
    assert panel.query.text() == "type:markdown search bar"  # the picker writes the syntax: what is shown runs
    assert spy.calls[-1][0] == "type:markdown search bar" and "types" not in spy.calls[-1][1]
    assert panel.model.rowCount() > 0
    assert all(r.metadata["type"] == "markdown" for r in panel.model.results())
    folder = str(sample_folder.resolve())
    assert panel.folder_filter.findData(folder) > 0
    with qtbot.waitSignal(panel.results_shown, timeout=5000):
        panel.folder_filter.setCurrentIndex(panel.folder_filter.findData(folder))
    assert spy.calls[-1][0] == f"folder:{sample_folder.name} type:markdown search bar"
    assert all(r.source.startswith(folder) for r in panel.model.results()) and panel.model.rowCount() > 0


def test_a_document_full_of_html_shows_as_text_and_loads_nothing(qtbot, window, tmp_path):
    folder = tmp_path / "hostile"
    folder.mkdir()
    image = tmp_path / "pixel.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n")
    (folder / "notes.md").write_text(
        f'Payload marker zebra <img src="file://{image}"> <b>bold?</b> <script>alert(1)</script> '
        "<a href='https://example.com'>link</a>\n", encoding="utf-8")
    add_and_sync(qtbot, window, folder, 1)
    results = search(qtbot, window, "zebra")
    html = window.search_panel.model.data(window.search_panel.model.index(0), SnippetHtmlRole)
    assert "<img" not in html and "<script" not in html and "&lt;" not in html  # the tags stripped (#47)...
    doc = SafeTextDocument()
    doc.setHtml(html)
    assert doc.toPlainText() == "Payload marker zebra bold? alert(1) link"  # ...what they held reads as text
    assert image_fragments(doc) == 0 and doc.requested == []
    # the probe can fail: the same document given the raw text would make an image and ask for the file
    raw = SafeTextDocument()
    raw.setHtml(results[0].content)
    assert image_fragments(raw) == 1
    raw.documentLayout()  # layout asks for the image
    raw.size()
    assert set(raw.requested) == {image.as_uri()}  # asked for, refused (a blank image came back, no file read)
    assert results[0].source.endswith("notes.md")
    window.search_panel.view.grab()  # paint the row: the delegate's documents must ask for nothing
    assert window.search_panel.view.itemDelegate().refused == []
