"""One watched folder's sync-thread bookkeeping, and the observers that watch folders.

`WatchedFolder` never owns a folder's state: its `row` is FolderMonitor's row as the watcher last read it.
`FolderObservers` starts one observer per folder (native, or polling when the native one failed or died) and
says once per folder when it has to poll.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from desktop_app.core.events import Event, Notice, NoticeLevel
from desktop_app.core.log import get_logger
from desktop_app.core.settings import Settings
from desktop_app.core.store.rows import FolderRow, FolderState
from desktop_app.core.watch.debounce import Debouncer, Op
from desktop_app.core.watch.observer import FolderEventHandler, FolderObserver, ObserverFactory, PathFilter

log = get_logger("watch")

__all__ = ["FolderObservers", "WatchedFolder"]


@dataclass
class WatchedFolder:
    """Sync-thread bookkeeping for one library folder. Its state is not ours: `row` is the FolderMonitor's row
    as last read (`monitor.rows()`) or as `monitor.check()` last answered; the watcher only reacts to it."""

    row: FolderRow
    observer: FolderObserver | None = None
    held: list[Op] = field(default_factory=list)
    held_overflow: bool = False
    fresh: bool = True  # not yet watched or reconciled by us

    @property
    def path(self) -> str:
        """The folder root."""
        return self.row.path

    @property
    def state(self) -> FolderState:
        """The state FolderMonitor recorded."""
        return self.row.state


class FolderObservers:
    """Starts and stops the observer of each watched folder; its events go to the debouncer."""

    def __init__(self, debouncer: Debouncer, settings: Callable[[], Settings], publish: Callable[[Event], None], *,
                 poll_seconds: float, native_factory: ObserverFactory) -> None:
        self.debouncer = debouncer
        self.poll_seconds = poll_seconds
        self._settings, self._publish = settings, publish
        self._native_factory = native_factory
        self._told_polling: set[str] = set()

    def ensure(self, folder: WatchedFolder) -> bool:
        """Watch the folder unless its observer is alive. True when an observer died under us (events may be
        missing: the folder wants a reconcile); a restarted one polls."""
        old = folder.observer
        if old is not None and old.alive():
            return False
        lost_events = old is not None
        force_polling = old is not None and not old.status.polling
        self.stop(folder)
        handler = FolderEventHandler(PathFilter(folder.path, self._settings().excluded_patterns), self.debouncer)
        observer = FolderObserver(folder.path, handler, poll_seconds=self.poll_seconds,
                                  native_factory=self._native_factory)
        try:
            status = observer.start(force_polling=force_polling)
        except OSError as exc:
            log.warning("cannot watch %s: %s", folder.path, exc)
            return False
        folder.observer = observer
        if status.polling:
            self._tell_polling(folder.path, status.reason or "the live watcher stopped")
        return lost_events

    @staticmethod
    def stop(folder: WatchedFolder) -> None:
        """Stop the folder's observer, if it has one."""
        if folder.observer is not None:
            folder.observer.stop()
            folder.observer = None

    def _tell_polling(self, path: str, reason: str) -> None:
        if path in self._told_polling:
            return
        self._told_polling.add(path)
        self._publish(Notice(
            NoticeLevel.WARNING,
            f"Trove cannot get instant change notifications for {path} ({reason}), so it checks that "
            f"folder for changes every {self.poll_seconds:g} seconds instead. Changes there may take a "
            "little longer to show up. (On Linux, raising fs.inotify.max_user_watches fixes this.)", path))
