"""The window shows a background phase that stopped on a full disk on the folder it left work in."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from desktop_app.core.errors import DiskFullError  # noqa: E402
from tests.gui.conftest import OFFSCREEN_PLUGIN_NOISE, qt_settings_in_tmp  # noqa: E402,F401 - QSettings in tmp

FULL = "The disk holding the library is full; free some space and try again."


def test_the_folder_row_says_the_semantic_phase_stopped(qapp, make_library, tmp_path, monkeypatch):
    from desktop_app.ui.folders_panel import FoldersPanel
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
