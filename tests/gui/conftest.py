"""GUI test fixtures: offscreen Qt, QSettings in a temp dir, a library with the fast embedder, a window,
and a recorder in place of the system file opener."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import shutil  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402

from desktop_app.core.library import Library  # noqa: E402
from desktop_app.core.settings import Settings  # noqa: E402
from desktop_app.resources import sample_docs_dir  # noqa: E402
from desktop_app.ui import open_file  # noqa: E402
from desktop_app.ui.app import make_application  # noqa: E402


@pytest.fixture(autouse=True)
def qt_settings_in_tmp(qapp, tmp_path_factory):
    """Point QSettings (window geometry, splitters) at a fresh temp dir for every test."""
    make_application()  # the names QSettings files itself under
    folder = tmp_path_factory.mktemp("qsettings")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(folder))
    yield folder


class OpenRecorder:
    """Stands in for the system file opener: remembers (path, page) instead of launching a viewer."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int | None]] = []

    def __call__(self, path: str, page: int | None = None) -> bool:
        self.calls.append((str(path), page))
        return True


@pytest.fixture
def opened():
    recorder = OpenRecorder()
    previous = open_file.set_opener(recorder)
    yield recorder
    open_file.set_opener(previous)


@pytest.fixture
def settings() -> Settings:
    return Settings(embedder="hash")


@pytest.fixture
def library(tmp_path, settings):
    lib = Library(tmp_path / "home", settings=settings)
    yield lib
    lib.close()


@pytest.fixture
def make_window(qtbot, library):
    """A factory for MainWindows over `library`; every window is shut down before the library closes."""
    from desktop_app.ui.window.main_window import MainWindow

    windows = []

    def make(lib=None):
        window = MainWindow(lib or library)
        qtbot.addWidget(window)
        windows.append(window)
        return window
    yield make
    for window in windows:
        window.shutdown()


@pytest.fixture
def window(make_window, qtbot):
    w = make_window()
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.folder_count >= 0 and not w.syncing, timeout=10_000)  # startup rescan done
    return w


@pytest.fixture
def sample_folder(tmp_path) -> Path:
    """A writable copy of the bundled sample documents."""
    dest = tmp_path / "docs"
    shutil.copytree(sample_docs_dir(), dest)
    return dest


# The offscreen platform plugin does not implement QPlatformWindow::propagateSizeHints(), whose base
# version prints this warning whenever a top-level widget with a layout gets size constraints, which is
# every window and dialog (a bare `QWidget` + `QVBoxLayout` + `show()` prints it). It says nothing about
# Trove, so exactly this message, and no other, is ignored by the WARNING-fails-the-test rule.
OFFSCREEN_PLUGIN_NOISE = r"^This plugin does not support propagateSizeHints\(\)$"


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.qt_log_ignore(OFFSCREEN_PLUGIN_NOISE))
