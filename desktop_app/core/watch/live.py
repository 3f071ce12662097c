"""LiveSync: the Library's handle on its LibraryWatcher, created on first start (watchdog is imported only then)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from desktop_app.core.watch.target import WatchTarget

if TYPE_CHECKING:
    from desktop_app.core.watch.service import LibraryWatcher

__all__ = ["LiveSync"]


class LiveSync:
    """Starts, stops and tells the one watcher of a library; a no-op until start() was called."""

    def __init__(self, target: WatchTarget, stopping: threading.Event, closing: Callable[[], bool]) -> None:
        self._target = target
        self._stopping = stopping  # the indexer's: a reconcile in progress ends after its current file
        self._closing = closing
        self.watcher: LibraryWatcher | None = None

    def start(self, **options: Any) -> LibraryWatcher:
        """Start (creating on first use) the watcher; `options` go to LibraryWatcher when it is created."""
        if self.watcher is None:
            from desktop_app.core.watch.service import LibraryWatcher  # watchdog's threads only from here on

            self.watcher = LibraryWatcher(self._target, **options)
        self.watcher.start()
        return self.watcher

    def stop(self) -> None:
        """Stop the watcher and join its threads, without waiting for a whole folder to be indexed."""
        if self.watcher is None:
            return
        self._stopping.set()
        try:
            self.watcher.stop()
        finally:
            if not self._closing():
                self._stopping.clear()

    def folders_changed(self) -> None:
        """A folder was added, removed, paused or resumed: the watcher looks at the folder list now."""
        if self.watcher is not None:
            self.watcher.folders_changed()
