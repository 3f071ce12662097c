"""View → Library files…: the ledger lists every file with its state and reason a page at a time (read on the task
runner, never on the UI thread), its counts equal `trove stats`, its filters and sort go to the store, and retry,
open and show in folder act on the selected file."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt

from desktop_app.core.ledger import LibraryLedger
from desktop_app.core.store.ledger_rows import FileState
from desktop_app.ui.library.ledger_model import COLUMNS, PAGE

GOOD = PAGE + 40  # more than one page


@pytest.fixture
def ledger_library(library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(GOOD):
        (docs / f"note{i:03}.txt").write_text(f"note number {i} about the harbour " + "word " * i, encoding="utf-8")
    (docs / "program.md").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8)
    (docs / "empty.md").write_bytes(b"")
    library.add_folder(docs)
    library.sync(wait=True)
    return docs


@pytest.fixture
def page_threads(monkeypatch):
    """The threads the ledger's pages were read on."""
    seen: list[threading.Thread] = []
    real = LibraryLedger.page

    def recorded(self, *args, **kwargs):
        seen.append(threading.current_thread())
        return real(self, *args, **kwargs)
    monkeypatch.setattr(LibraryLedger, "page", recorded)
    return seen


def select(panel, row: int) -> None:
    """Select one row (by the selection model: QTableView.selectRow reads the keyboard's modifiers, and an earlier
    test's Ctrl+Shift key click can leave them held on the offscreen platform)."""
    flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
    panel.table.selectionModel().select(panel.model.index(row, 0), flags)


def menu_action(window, text: str):
    view = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    return next(a for a in view.actions() if a.text() == text)


def test_the_ledger_pages_counts_filters_and_sorts(qtbot, ledger_library, make_window, page_threads, opened):
    window = make_window()
    window.show()
    qtbot.waitUntil(lambda: window.folder_count >= 0 and not window.syncing, timeout=10_000)  # roots known
    menu_action(window, "Library &files…").trigger()
    panel = window.ledger_panel
    qtbot.waitUntil(lambda: panel.counts_label.text().startswith(f"{GOOD} documents"), timeout=20_000)
    stats = window.library.stats()
    assert panel.counts_label.text().startswith(f"{stats['documents']} documents indexed, {stats['failed']} not")
    model = panel.model
    qtbot.waitUntil(lambda: model.rowCount() == PAGE, timeout=20_000)  # one page, not the whole ledger
    panel.table.scrollToBottom()
    qtbot.waitUntil(lambda: model.rowCount() == GOOD + 2, timeout=20_000)  # the next page, as the view scrolled
    assert page_threads and threading.main_thread() not in page_threads

    panel.state_box.setCurrentIndex(panel.state_box.findData(str(FileState.SKIPPED)))
    qtbot.waitUntil(lambda: model.rowCount() == 2 and not model.is_loading(), timeout=20_000)
    rows = {model.row(i).path.rsplit("/", 1)[1]: model.row(i) for i in range(model.rowCount())}
    assert set(rows) == {"program.md", "empty.md"}
    assert "binary" in rows["program.md"].reason and "empty" in rows["empty.md"].reason
    assert model.columnCount() == len(COLUMNS) and model.headerData(1, Qt.Orientation.Horizontal) == "State"
    assert model.data(model.index(0, 1)) == "skipped" and model.data(model.index(0, 2)) == rows["empty.md"].reason
    assert panel.state_box.itemText(panel.state_box.currentIndex()) == "skipped (2)"

    panel.state_box.setCurrentIndex(0)
    panel.table.sortByColumn(5, Qt.SortOrder.DescendingOrder)  # by size, biggest first: the 2 KB binary, then notes
    qtbot.waitUntil(lambda: model.rowCount() == PAGE and not model.is_loading(), timeout=20_000)
    assert [model.row(i).path.rsplit("/", 1)[1] for i in range(3)] == [
        "program.md", f"note{GOOD - 1:03}.txt", f"note{GOOD - 2:03}.txt"]

    select(panel, 0)
    panel.on_open_clicked()
    panel.on_show_clicked()
    assert opened.calls == [(model.row(0).path, None), (str(ledger_library), None)]


def test_retry_reads_a_fixed_file_again(qtbot, ledger_library, make_window):
    window = make_window()
    window.show()
    qtbot.waitUntil(lambda: window.folder_count >= 0 and not window.syncing, timeout=10_000)  # roots known
    menu_action(window, "Library &files…").trigger()
    panel = window.ledger_panel
    panel.state_box.setCurrentIndex(panel.state_box.findData(str(FileState.SKIPPED)))
    model = panel.model
    qtbot.waitUntil(lambda: model.rowCount() == 2 and not model.is_loading(), timeout=20_000)
    empty = next(i for i in range(model.rowCount()) if model.row(i).path.endswith("empty.md"))
    select(panel, empty)
    assert panel.retry_button.isEnabled()
    (ledger_library / "empty.md").write_text("# Now it has words about lanterns\n", encoding="utf-8")
    with qtbot.waitSignal(panel.retried, timeout=30_000):
        panel.on_retry_clicked()
    qtbot.waitUntil(lambda: model.rowCount() == 1 and not model.is_loading(), timeout=20_000)
    assert model.row(0).path.endswith("program.md")
    assert next(r for r in window.library.ledger.page() if r.path.endswith("empty.md")).state == FileState.INDEXED
    assert window.library.ledger.counts()[FileState.SKIPPED] == 1
