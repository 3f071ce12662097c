"""Folders panel actions, failed files with reasons, offline folders, notices and the status bar."""

from __future__ import annotations

import shutil

from PySide6.QtWidgets import QApplication

from desktop_app.core.events import Notice
from tests.gui.gui_helpers import SAMPLE_DOCS, add_and_sync, documents_in


def _action(window, folder, text: str):
    menu = window.folders_panel.context_menu(str(folder.resolve()))
    return next(a for a in menu.actions() if a.text().startswith(text))


def _row(window, folder):
    return window.folders_panel._rows[str(folder.resolve())]


def test_a_folder_row_shows_state_counts_and_both_phases(qtbot, window, sample_folder):
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)
    window.library.wait_for_embeddings(30)
    window.refresh_now()
    row = _row(window, sample_folder)
    qtbot.waitUntil(lambda: row.semantic.value() == 1000, timeout=5000)
    assert row.name.text() == "docs"
    assert row.details.text() == f"active · {SAMPLE_DOCS} documents"
    assert row.keyword.value() == 1000
    assert window.status.semantic.value() == 1000


def test_failed_files_are_listed_with_their_reasons(qtbot, window, tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "good.txt").write_text("a perfectly readable note about otters\n" * 5, encoding="utf-8")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    add_and_sync(qtbot, window, folder, 1)
    qtbot.waitUntil(lambda: window.folders_panel.failures.topLevelItemCount() == 1, timeout=5000)
    item = window.folders_panel.failures.topLevelItem(0)
    assert item.text(0) == "broken.pdf" and item.text(1)
    assert "1 failed" in _row(window, folder).details.text()
    assert window.folders_panel.failures.isVisibleTo(window)


def test_pause_resume_and_remove(qtbot, window, sample_folder, opened):
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)
    _action(window, sample_folder, "Pause").trigger()
    qtbot.waitUntil(lambda: _row(window, sample_folder).info.state == "paused", timeout=5000)
    assert _row(window, sample_folder).details.text().startswith("paused")
    _action(window, sample_folder, "Resume").trigger()
    qtbot.waitUntil(lambda: _row(window, sample_folder).info.state == "active", timeout=5000)
    _action(window, sample_folder, "Open in file manager").trigger()
    assert opened.calls == [(str(sample_folder.resolve()), None)]
    qtbot.waitUntil(lambda: window.tasks.pending() == 0, timeout=10_000)  # the resume's refresh and rescan
    window.folders_panel.confirm = lambda _text: False
    _action(window, sample_folder, "Remove").trigger()
    assert window.tasks.pending() == 0 and documents_in(window, sample_folder) == SAMPLE_DOCS
    window.folders_panel.confirm = lambda _text: True
    _action(window, sample_folder, "Remove").trigger()
    qtbot.waitUntil(lambda: window.folder_count == 0, timeout=10_000)
    assert window.stack.currentWidget() is window.empty_state
    assert window.library.search("sourdough") == []


def test_a_missing_folder_goes_offline_with_a_notice(qtbot, window, sample_folder):
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)
    shutil.rmtree(sample_folder)
    _action(window, sample_folder, "Resync").trigger()
    qtbot.waitUntil(lambda: _row(window, sample_folder).info.state == "offline", timeout=20_000)
    assert "offline" in _row(window, sample_folder).details.text()
    qtbot.waitUntil(lambda: any("offline" in n.message for n in window.notices.notices()), timeout=5000)
    assert window.status.notices_button.text().startswith("⚠ ") and "notice" in window.status.notices_button.text()
    assert window.library.search("sourdough")  # its documents stay searchable


def test_notices_from_worker_threads_reach_the_view(qtbot, window):
    import threading

    thread = threading.Thread(target=window.library.publish, args=(Notice("error", "disk is on fire"),))
    thread.start()
    thread.join()
    qtbot.waitUntil(lambda: bool(window.notices.notices()) and window.notices.notices()[0].message == "disk is on fire",
                    timeout=2000)
    assert window.status.notices_button.text() == "⚠ 1 notice"
    window.status.notices_button.click()
    assert window.notices.isVisible() and window.status.notices_button.text() == "Notices"
    window.notices.on_clear_clicked()
    assert window.notices.notices() == []
    QApplication.processEvents()


def test_the_status_bar_and_a_folder_row_agree_on_semantic_progress_before_any_chunk(qtbot):
    """During a first index nothing is read yet: both bars say 0%, not the status bar 100% beside a row's 0%."""
    from desktop_app.core.events import IndexProgress
    from desktop_app.core.folders import FolderInfo
    from desktop_app.ui.library.folder_row import FolderRow
    from desktop_app.ui.window.status_bar import StatusBar

    status = StatusBar()
    qtbot.addWidget(status)
    status.on_progress(IndexProgress("scan", files_queued=12))
    first = FolderInfo(id=1, path="/docs", state="active", documents=0, failed=0, chunks=0, embedded=0)
    row = FolderRow(first)
    qtbot.addWidget(row)
    status.on_stats({"folders": [first.__dict__], "documents": 0, "chunks": 0, "chunks_embedded": 0})
    assert status.semantic.value() == row.semantic.value() == 0
    # Documents with nothing to embed (all empty, say) are done; half the chunks embedded is half.
    done = FolderInfo(id=1, path="/docs", state="active", documents=3, failed=0, chunks=0, embedded=0)
    row.update_info(done)
    status.on_stats({"folders": [done.__dict__], "documents": 3, "chunks": 0, "chunks_embedded": 0})
    assert status.semantic.value() == row.semantic.value() == 1000
    half = FolderInfo(id=1, path="/docs", state="active", documents=3, failed=0, chunks=8, embedded=4)
    row.update_info(half)
    status.on_stats({"folders": [half.__dict__], "documents": 3, "chunks": 8, "chunks_embedded": 4})
    assert status.semantic.value() == row.semantic.value() == 500
