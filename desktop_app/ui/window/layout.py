"""The window's remembered layout: its geometry and where the person left each splitter, kept in QSettings."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QSplitter, QWidget


class LayoutMemory:
    """Saves and restores a window's geometry and its named splitters (`splitters()` names them; a name is the
    settings key, so renaming one forgets what the person set)."""

    def __init__(self, window: QWidget, splitters: Callable[[], dict[str, QSplitter]]) -> None:
        self.window = window
        self.splitters = splitters

    def restore(self) -> None:
        """Put back what was saved; anything never saved (a first run) keeps the built-in layout."""
        settings = QSettings()
        geometry = settings.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.window.restoreGeometry(geometry)
        for name, splitter in self.splitters().items():
            state = settings.value(f"splitters/{name}")
            if isinstance(state, QByteArray) and not state.isEmpty():
                splitter.restoreState(state)

    def save(self) -> None:
        settings = QSettings()
        settings.setValue("window/geometry", self.window.saveGeometry())
        for name, splitter in self.splitters().items():
            settings.setValue(f"splitters/{name}", splitter.saveState())
        settings.sync()
