"""File names and messages are never HTML in the window: tooltips, labels, result rows, sources, failed files.

A file named `<img src=pic.png>.txt` (with pic.png beside it) used to become an image that Qt loaded from
disk in the result and failed-file tooltips. Every tooltip is rendered here the way Qt renders a rich-text
tooltip, into a document that records any resource asked for.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from desktop_app.core.chat.answer.context import Passage  # noqa: E402
from desktop_app.core.library import Library  # noqa: E402
from desktop_app.core.types import RetrievalResult  # noqa: E402
from desktop_app.ui.safe_document import SafeTextDocument, image_fragments, plain_tooltip  # noqa: E402
from tests.gui.conftest import OFFSCREEN_PLUGIN_NOISE, qt_settings_in_tmp  # noqa: E402,F401 - QSettings in tmp

EVIL = "/docs/<img src=pic.png>.txt"
BYTES = os.fsdecode(b"/docs/bad\xffname.txt")


def rendered(tooltip: str) -> SafeTextDocument:
    """The tooltip laid out as Qt lays out a rich-text tooltip (it is rich text: it starts with <p>)."""
    doc = SafeTextDocument()
    doc.setHtml(tooltip)
    doc.size()  # lay it out: images are fetched by the layout
    return doc


def assert_inert(tooltip: str, shown: str) -> None:
    doc = rendered(tooltip)
    assert doc.requested == [] and image_fragments(doc) == 0
    assert shown in doc.toPlainText()


def test_plain_tooltip_shows_markup_as_text():
    assert_inert(plain_tooltip(EVIL, path=True), "<img src=pic.png>.txt")
    assert_inert(plain_tooltip(BYTES, path=True), "bad\\xffname.txt")
    assert_inert(plain_tooltip("a <b>reason</b> & <script>x</script>"), "a <b>reason</b> & <script>x</script>")
    raw = rendered(EVIL)  # what Qt did before: the name became an image it went to load
    assert set(raw.requested) == {"pic.png"}


def test_result_rows_and_their_tooltips(qapp):
    from desktop_app.ui.search.results_model import LocationRole, ResultsModel

    model = ResultsModel()
    model.set_results([RetrievalResult("a <img src=pic.png> snippet", 1.0, EVIL, {"page": 2, "type": "text"}),
                       RetrievalResult("text", 0.5, BYTES, {"type": "text"})])
    first, second = model.index(0), model.index(1)
    assert_inert(model.data(first, Qt.ItemDataRole.ToolTipRole), "<img src=pic.png>.txt (p. 2)")
    assert model.data(second, Qt.ItemDataRole.DisplayRole) == "bad\\xffname.txt"
    assert model.data(second, LocationRole).startswith("docs")


def test_failed_files_and_folder_rows(qapp, tmp_path):
    from desktop_app.ui.library.folders_panel import FoldersPanel
    from desktop_app.ui.tasks import TaskRunner

    with Library(tmp_path / "home") as lib:
        panel = FoldersPanel(lib, TaskRunner())
        folder = tmp_path / "<img src=pic.png>"
        folder.mkdir()
        panel.set_folders([lib.add_folder(folder)], [{"path": EVIL, "reason": "binary <b>file</b>"},
                                                    {"path": BYTES, "reason": "empty"}])
        items = [panel.failures.topLevelItem(i) for i in range(panel.failures.topLevelItemCount())]
        assert_inert(items[0].toolTip(0), EVIL)
        assert_inert(items[0].toolTip(1), "binary <b>file</b>")
        assert items[1].text(0) == "bad\\xffname.txt"
        row = next(iter(panel._rows.values()))
        assert row.name.textFormat() == Qt.TextFormat.PlainText and row.name.text() == "<img src=pic.png>"
        assert_inert(row.toolTip(), "<img src=pic.png>")
        panel.deleteLater()


def test_sources_and_labels_that_show_names(qapp):
    from desktop_app.ui.chat.sources_panel import SourcesPanel
    from desktop_app.ui.search.panel import SearchPanel  # noqa: F401 - its summary label is checked below
    from desktop_app.ui.window.status_bar import StatusBar

    panel = SourcesPanel()
    panel.set_passages([Passage(1, "text", EVIL, page=1), Passage(2, "text", BYTES)], cited=[1])
    assert_inert(panel.list.item(0).toolTip(), "<img src=pic.png>.txt (page 1)")
    assert "bad\\xffname.txt" in panel.list.item(1).text()
    assert StatusBar().message.textFormat() == Qt.TextFormat.PlainText


@pytest.mark.qt_log_ignore(OFFSCREEN_PLUGIN_NOISE)
def test_a_screenshot_with_a_query_and_a_home_leaves_that_home_alone(qtbot, tmp_path, monkeypatch):
    from desktop_app.ui.app import run_gui

    monkeypatch.setenv("TROVE_EMBEDDER", "hash")
    home = tmp_path / "mine"
    assert run_gui(home=home, screenshot=str(tmp_path / "shot.png"), query="anything") == 0
    assert (tmp_path / "shot.png").stat().st_size > 0
    with Library(home) as lib:
        assert lib.folders() == []
    assert not (home / "sample-documents").exists()
