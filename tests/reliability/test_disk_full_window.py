"""The folder row: a background phase stopped on a full disk, the semantic phase's file and time left, pausing it."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from desktop_app.core.errors import DiskFullError  # noqa: E402
from tests.gui.conftest import OFFSCREEN_PLUGIN_NOISE, qt_settings_in_tmp  # noqa: E402,F401 - QSettings in tmp

FULL = "The disk holding the library is full; free some space and try again."


def test_the_folder_row_says_the_semantic_phase_stopped(qapp, make_library, tmp_path, monkeypatch):
    from desktop_app.ui.library.folders_panel import FoldersPanel
    from desktop_app.ui.tasks import TaskRunner

    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(5):
        (docs / f"n{i}.txt").write_text(f"note {i} about a quokka")
    lib = make_library()

    def full(_items):
        raise DiskFullError(FULL)  # what the store raises when its write meets ENOSPC (real: test_disk_full_phases)
    monkeypatch.setattr(lib.store, "store_vectors", full)
    lib.add_folder(docs)
    lib.sync()
    assert lib.embed_worker.error == FULL
    panel = FoldersPanel(lib, TaskRunner())
    panel.set_folders(lib.folders(), [])
    row = next(iter(panel._rows.values()))
    assert row.semantic.format() == "Semantic stopped"
    assert FULL in row.semantic.toolTip()
    monkeypatch.undo()
    lib.sync()  # space freed: the next run finishes, and the row says so
    assert lib.embed_worker.error is None
    panel.set_folders(lib.folders(), [])
    assert row.semantic.format() == "Semantic %p%" and row.semantic.value() == 1000
    panel.deleteLater()


def test_the_folder_row_names_the_file_and_the_time_left_and_pauses(qapp, make_library, tmp_path):
    from desktop_app.core.events import IndexProgress
    from desktop_app.ui.library.folders_panel import FoldersPanel, eta_text
    from desktop_app.ui.tasks import TaskRunner

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "n.txt").write_text("note about a quokka")
    lib = make_library()
    info = lib.add_folder(docs)
    panel = FoldersPanel(lib, TaskRunner())
    waiting = type(info)(**{**info.__dict__, "chunks": 1200, "embedded": 0})  # as the store reports mid-run
    panel.set_folders([waiting], [])
    row = panel._rows[info.path]
    panel.on_progress(IndexProgress("semantic", chunks_embedded=10, chunks_total=1200, rate=2.0,
                                    current_file=str(docs / "n.txt")))
    assert row.semantic.format() == "Semantic %p% · about 10 min left"
    assert "now on" in row.semantic.toolTip() and "n.txt" in row.semantic.toolTip()
    assert eta_text(30) == "about 30 s left" and eta_text(4 * 3600) == "about 4.0 h left"
    actions = [a.text() for a in panel.context_menu(info.path).actions()]
    assert "Pause semantic indexing" in actions
    lib.set_semantic_paused(info.path, True)
    panel.set_folders([waiting], [])
    assert row.semantic.format() == "Semantic paused %p%"
    assert "Resume semantic indexing" in [a.text() for a in panel.context_menu(info.path).actions()]
    panel.deleteLater()
