"""Accepting folders dragged in from the file manager (shared by the folders panel and the main window)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QMimeData
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent


def local_paths(mime: QMimeData) -> list[str]:
    """The local files and folders a drag carries (web URLs are ignored)."""
    return [url.toLocalFile() for url in mime.urls() if url.isLocalFile() and url.toLocalFile()]


class FolderDropTarget:
    """Mixin for a QWidget that takes dropped local paths; the widget implements `accept_dropped_paths`."""

    def accept_dropped_paths(self, paths: Sequence[str]) -> bool:
        raise NotImplementedError

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if local_paths(event.mimeData()):
            event.acceptProposedAction()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if local_paths(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        if self.accept_dropped_paths(local_paths(event.mimeData())):
            event.acceptProposedAction()
