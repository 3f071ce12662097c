"""Dropping folders (and files) from a file manager adds them, indexes them, and makes them searchable."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from desktop_app.core.settings import Settings
from tests.gui.gui_helpers import SAMPLE_DOCS, drop, search, wait_indexed


def test_empty_library_shows_the_drop_hint(window):
    assert window.stack.currentWidget() is window.empty_state
    assert "Drop a folder here" in window.empty_state.findChild(type(window.status.message), "emptyTitle").text()


def test_dropping_a_folder_adds_it_and_its_documents_become_searchable(qtbot, window, sample_folder):
    event = drop(window, [sample_folder])
    assert event.isAccepted()
    wait_indexed(qtbot, window, sample_folder, SAMPLE_DOCS)
    assert window.folder_count == 1
    assert window.stack.currentWidget() is window.splitter
    results = search(qtbot, window, "sourdough starter")
    assert results and results[0].source.endswith("sourdough-bread.html")


def test_dropping_a_file_adds_the_folder_that_holds_it(qtbot, window, sample_folder):
    drop(window.folders_panel, [sample_folder / "first-aid-basics.txt"])
    wait_indexed(qtbot, window, sample_folder, SAMPLE_DOCS)
    assert window.folders_panel.folder_paths() == [str(sample_folder.resolve())]


def test_a_drop_without_local_files_is_refused(qtbot, window):
    mime = QMimeData()
    mime.setUrls([QUrl("https://example.com/x.pdf")])
    event = QDropEvent(QPointF(5, 5), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    assert not event.isAccepted()
    assert window.tasks.pending() == 0


def test_with_the_real_minilm_a_dropped_folder_is_found_by_meaning(qtbot, tmp_path, make_window, sample_folder, minilm):
    """The real embedding model: a paraphrase with no shared keywords finds the right passage semantically."""
    from desktop_app.core.library import Library

    lib = Library(tmp_path / "minilm-home", settings=Settings(), embedder=minilm)
    try:
        window = make_window(lib)
        window.show()
        drop(window, [sample_folder])
        wait_indexed(qtbot, window, sample_folder, SAMPLE_DOCS)
        assert lib.wait_for_embeddings(120)
        window.search_panel.mode.setCurrentIndex(window.search_panel.mode.findData("semantic"))
        results = search(qtbot, window, "how do I help someone whose heart stopped")
        assert results[0].source.endswith("first-aid-basics.txt")
    finally:
        window.shutdown()
        lib.close()
