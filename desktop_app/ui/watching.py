"""Starts and stops folder watching, whatever shape the core's watcher has (and none at all).

The watcher lives in desktop_app/core/watch (another team's module). The window must work without it:
if neither `Library.start_watching()` nor `desktop_app.core.watch.LibraryWatcher` exists, the startup
rescan and the Resync action still keep the index current.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from desktop_app.core.events import Notice

log = logging.getLogger("trove.ui")


class _LibraryWatching:
    """Adapter for a Library that watches by itself (start_watching/stop_watching)."""

    def __init__(self, library) -> None:
        self.library = library

    def start(self) -> None:
        self.library.start_watching()

    def stop(self) -> None:
        stop = getattr(self.library, "stop_watching", None)
        if callable(stop):
            stop()


def _make_watcher(library):
    if callable(getattr(library, "start_watching", None)):
        return _LibraryWatching(library)
    try:
        from desktop_app.core.watch import LibraryWatcher
    except ImportError:
        log.info("no folder watcher in this build; relying on rescans")
        return None
    return LibraryWatcher(library)


def start(library, tasks, on_notice: Callable[[Notice], None]):
    """Create and start (off the UI thread) the watcher; returns it, or None when watching is unavailable."""
    try:
        watcher = _make_watcher(library)
    except Exception as exc:  # a broken watcher must not stop the window from opening
        log.exception("could not create the folder watcher")
        on_notice(Notice("warning", f"Folders are not watched for changes: {exc}"))
        return None
    if watcher is None:
        return None
    tasks.run(watcher.start, None, lambda exc: on_notice(Notice("warning", f"Folders are not watched for changes: {exc}")))
    return watcher


def folders_added(watcher, paths) -> None:
    """Tell the watcher about new folders, if it needs telling (some re-read the library's folders by themselves)."""
    for name in ("refresh", "reload", "sync_folders"):
        hook = getattr(watcher, name, None)
        if callable(hook):
            try:
                hook()
            except Exception:
                log.exception("watcher %s() failed", name)
            return


def stop(watcher) -> None:
    if watcher is None:
        return
    try:
        watcher.stop()
    except Exception:
        log.exception("stopping the folder watcher failed")
