"""File → Back up… and Restore… run on the task runner (the window stays responsive), and a read-only library says
so in the status bar and starts no watcher."""

from __future__ import annotations

import subprocess
from pathlib import Path

from desktop_app.core.library import Library
from desktop_app.core.read_only import NOTICE
from desktop_app.core.settings import Settings
from tests.gui.gui_helpers import add_and_sync


def menu_texts(window) -> list[str]:
    file_menu = window.menuBar().actions()[0].menu()
    return [a.text() for a in file_menu.actions()]


def test_back_up_and_restore_from_the_file_menu(qtbot, window, sample_folder, tmp_path):
    assert {"&Back up…", "Res&tore…"} <= set(menu_texts(window))
    add_and_sync(qtbot, window, sample_folder, 7)
    target = tmp_path / "saved.tar.gz"
    window.backups.ask_path = lambda *_args: (str(target), "")
    with qtbot.waitSignal(window.backups.backed_up, timeout=30_000) as done:
        window.backups.on_backup_triggered()
    assert done.args[0].path == target and done.args[0].manifest.counts["documents"] == 7
    assert "Backed up 7 documents" in window.status.currentMessage()

    damaged = tmp_path / "damaged.tar.gz"
    damaged.write_bytes(target.read_bytes()[:200])
    window.backups.ask_open = lambda *_args: (str(damaged), "")
    asked: list[str] = []

    def confirm(text: str) -> bool:
        asked.append(text)
        return True

    window.backups.confirm = confirm
    window.backups.on_restore_triggered()
    qtbot.waitUntil(lambda: "damaged" in window.status.currentMessage(), timeout=10_000)
    assert asked == [] and window.restore_after_close is None  # refused before asking, nothing replaced

    window.backups.ask_open = lambda *_args: (str(target), "")
    with qtbot.waitSignal(window.backups.restore_confirmed, timeout=10_000):
        window.backups.on_restore_triggered()
    assert "7 documents" in asked[0]
    assert window.restore_after_close == str(target)  # the window closed; run_gui restores and opens again


def test_a_read_only_library_says_so_in_the_status_bar_and_watches_nothing(qtbot, make_window, tmp_path,
                                                                          sample_folder):
    point = tmp_path / "media"
    point.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", str(point)], check=True)
    try:
        with Library(point / "home", settings=Settings(embedder="hash")) as lib:
            lib.add_folder(sample_folder)
            lib.sync(wait=True)
        subprocess.run(["mount", "-o", "remount,ro", str(point)], check=True)
        lib = Library(point / "home", settings=Settings(embedder="hash"))
        try:
            window = make_window(lib)
            window.show()
            qtbot.waitUntil(lambda: window.folder_count == 1, timeout=10_000)
            assert window.status.read_only.isVisible() and window.status.read_only.toolTip() == NOTICE
            assert lib.watcher is None
            assert Path(lib.search("sourdough", mode="keyword")[0].source).name == "sourdough-bread.html"
            window.shutdown()
        finally:
            lib.close()
    finally:
        subprocess.run(["umount", "-l", str(point)], check=True)
