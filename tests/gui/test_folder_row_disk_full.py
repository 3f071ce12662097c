"""The folder row shows the one-line reason when the keyword phase, the keyword rebuild a migration asks for, or
the OCR phase stops on a full disk, and shows it no more once a run succeeds.

The store's write raising DiskFullError is what a write meeting ENOSPC raises: the real full disk (a tmpfs) for
each phase is in tests/reliability/test_disk_full_phases.py; here the window's side is checked.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from desktop_app.core.errors import DiskFullError  # noqa: E402
from desktop_app.core.library import Library  # noqa: E402
from desktop_app.core.settings import Settings  # noqa: E402
from tests.support import sample_docs as sd  # noqa: E402
from tests.support.helpers import write_pdf  # noqa: E402

FULL = "The disk holding the library is full; free some space and try again."


def full(*_args, **_kwargs):
    raise DiskFullError(FULL)


def notes(folder, n=3):
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"n{i}.txt").write_text(f"note {i} about a quokka")
    return folder


def row_of(window, folder):
    return window.folders_panel._rows[str(folder)]


def test_the_keyword_phase_on_a_full_disk_shows_on_the_folder_row(qtbot, window, library, tmp_path, monkeypatch):
    docs = notes(tmp_path / "docs")
    library.add_folder(docs)
    monkeypatch.setattr(library.store, "write_document", full)
    window.request_sync()
    qtbot.waitUntil(lambda: str(docs) in window.folders_panel._rows
                    and row_of(window, docs).keyword.format() == "Keyword stopped", timeout=60_000)
    assert FULL in row_of(window, docs).keyword.toolTip()
    monkeypatch.undo()  # space freed: the next sync indexes, and the row says so
    window.request_sync()
    # the folder list may reload with the documents before the sync's end clears the stopped state: wait for both
    qtbot.waitUntil(lambda: row_of(window, docs).info.documents == 3
                    and row_of(window, docs).keyword.format() == "Keyword %p%", timeout=60_000)
    assert FULL not in row_of(window, docs).keyword.toolTip()


def test_the_keyword_rebuild_after_a_migration_on_a_full_disk_shows_on_the_folder_row(qtbot, window, library, tmp_path,
                                                                                       monkeypatch):
    docs = notes(tmp_path / "docs")
    library.add_folder(docs)
    library.sync()
    library.store.set_meta("fts_tokenizer", "an older text pipeline")  # what a migration leaves: a rebuild pending
    assert library.store.keyword_rebuild_pending()
    monkeypatch.setattr(library.store, "rebuild_keywords", full)
    window.request_sync()
    qtbot.waitUntil(lambda: str(docs) in window.folders_panel._rows
                    and row_of(window, docs).keyword.format() == "Keyword stopped", timeout=60_000)
    assert FULL in row_of(window, docs).keyword.toolTip()
    monkeypatch.undo()
    window.request_sync()
    qtbot.waitUntil(lambda: row_of(window, docs).keyword.format() == "Keyword %p%", timeout=60_000)
    assert not library.store.keyword_rebuild_pending()


def test_the_ocr_phase_on_a_full_disk_shows_on_the_folder_row(qapp, tmp_path, monkeypatch):
    from desktop_app.ui.library.folders_panel import FoldersPanel
    from desktop_app.ui.tasks import TaskRunner

    docs = tmp_path / "docs"
    docs.mkdir()
    sd.write_scanned_pdf(docs / "scan.pdf", write_pdf(tmp_path / "t.pdf", ["THE PANGOLIN SLEEPS"]))
    lib = Library(tmp_path / "home", settings=Settings(embedder="hash"),
                  ocr_read=lambda _data, _type, _page: ("THE PANGOLIN SLEEPS", 0.9, ""))  # scripted OCR
    try:
        monkeypatch.setattr(lib.store, "store_ocr_page", full)
        lib.add_folder(docs)
        lib.sync()
        assert lib.ocr_worker.error == FULL
        panel = FoldersPanel(lib, TaskRunner())
        panel.set_folders(lib.folders(), [])
        row = panel._rows[str(docs)]
        assert row.details.text().endswith(f"1 page waiting for OCR · OCR stopped: {FULL}"), row.details.text()
        monkeypatch.undo()
        lib.sync()
        assert lib.ocr_worker.error is None
        panel.set_folders(lib.folders(), [])
        assert "OCR stopped" not in row.details.text() and "waiting for OCR" not in row.details.text()
        panel.deleteLater()
    finally:
        lib.close()
