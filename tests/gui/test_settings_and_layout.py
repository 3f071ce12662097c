"""The settings dialog, applying settings (with a re-index), and remembered window geometry and splitters."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from desktop_app.ui.dialogs.settings import SettingsDialog
from tests.gui.gui_helpers import SAMPLE_DOCS, add_and_sync, wait_indexed


def test_the_dialog_reports_only_what_changed(qtbot, library):
    dialog = SettingsDialog(library.settings)
    qtbot.addWidget(dialog)
    assert dialog.changes() == {}
    dialog.chunk_size.setValue(128)
    dialog.top_k.setValue(7)
    dialog.keyword_weight.setValue(2.0)
    dialog.excluded.setPlainText("node_modules\n*.log\n")
    dialog.n_threads.setValue(2)
    changes = dialog.changes()
    assert changes == {"chunk_size": 128, "top_k": 7, "keyword_weight": 2.0,
                       "excluded_patterns": ("node_modules", "*.log"), "n_threads": 2}
    assert SettingsDialog.needs_reindex(changes)
    assert not SettingsDialog.needs_reindex({"top_k": 3})


def test_applying_a_chunk_size_change_reindexes(qtbot, window, sample_folder):
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)
    before = window.library.stats()["chunks"]
    with qtbot.waitSignal(window.sync_finished, timeout=30_000):
        window.apply_settings({"chunk_size": 60, "chunk_overlap": 10, "top_k": 4}, reindex=True)
    wait_indexed(qtbot, window, sample_folder, SAMPLE_DOCS)
    assert window.library.settings.chunk_size == 60
    assert window.library.stats()["chunks"] > before
    assert window.search_panel.top_k == 4
    assert window.library.settings_path.exists()


def test_geometry_and_splitters_are_remembered(qtbot, make_window, qt_settings_in_tmp):
    first = make_window()
    first.show()
    screen = first.screen().availableGeometry()  # restoreGeometry keeps a window on its screen: stay inside
    first.resize(min(1111, screen.width() - 40), min(777, screen.height() - 60))
    size = (first.width(), first.height())  # what the window took: never below its minimum (fonts differ)
    first.splitter.setSizes([200, 400, 500])
    wanted = first.splitter.sizes()
    first.close()  # closeEvent saves
    assert list(qt_settings_in_tmp.rglob("*.ini")), "QSettings must write into the test's temp dir"
    assert QSettings().value("window/geometry") is not None
    second = make_window()
    second.show()
    assert (second.width(), second.height()) == size
    assert second.splitter.sizes() == wanted
