"""A library on a network drive (a real FUSE mount made here: bindfs, as root) says so in the status bar, for as
long as the window is open, and is searched and watched as usual; one on the local disk shows nothing."""

from __future__ import annotations

from pathlib import Path

from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from tests.support.fuse_drive import fuse_mount


def test_a_library_on_a_fuse_drive_says_so_in_the_status_bar(qtbot, make_window, tmp_path, sample_folder):
    with fuse_mount(tmp_path) as drive:
        lib = Library(drive / "home", settings=Settings(embedder="hash"))
        try:
            lib.add_folder(sample_folder)
            lib.sync(wait=True)
            window = make_window(lib)
            window.show()
            qtbot.waitUntil(lambda: window.folder_count == 1, timeout=10_000)
            label = window.status.network_drive
            assert label.isVisible() and label.toolTip() == lib.store.journal_notice
            assert label.toolTip().startswith(f"This library is on a network drive (fuse at {drive}):")
            assert not window.status.read_only.isVisible()
            assert Path(lib.search("sourdough", mode="keyword")[0].source).name == "sourdough-bread.html"
            window.shutdown()
        finally:
            lib.close()


def test_a_library_on_the_local_disk_shows_no_network_drive(qtbot, window):
    assert not window.status.network_drive.isVisible() and window.status.network_drive.toolTip() == ""
