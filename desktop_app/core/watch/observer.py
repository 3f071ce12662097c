"""One watchdog observer per library folder, turning raw events into debouncer calls.

The native observer (inotify on Linux) is tried first. When it cannot start — the kernel's watch limit is
reached (watchdog raises OSError ENOSPC "inotify watch limit reached", or EMFILE for the instance
limit) or anything else fails — the folder falls back to a PollingObserver, which walks the tree every
`poll_seconds`. The caller tells the user once; this module only reports which kind is running.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingObserver

from desktop_app.core.ingest.discover import is_excluded, matches_pattern
from desktop_app.core.ingest.filetypes import file_type
from desktop_app.core.log import get_logger
from desktop_app.core.watch.debounce import Debouncer

log = get_logger("watch")

# Events that say a file's content or existence changed. Opened / closed-without-writing / attribute
# events, and "folder modified" (which only echoes its children's events), carry nothing to do.
_CHANGE_EVENTS = (FileCreatedEvent, FileModifiedEvent, FileClosedEvent, FileDeletedEvent,
                  DirCreatedEvent, DirDeletedEvent)


class PathFilter:
    """Which paths under a root Trove cares about: the same rules as discovery (hidden, excluded, known types).

    A path is either read (`wants`), listed without being read (`lists`: the ledger's hidden and unsupported rows,
    which a sync records too), or nothing to Trove (an excluded name, anything inside a hidden folder)."""

    def __init__(self, root: str, patterns: tuple[str, ...]) -> None:
        self.root = root.rstrip(os.sep)
        self.patterns = patterns

    def _parts(self, path: str) -> list[str] | None:
        """The path's parts below the root; None outside it, or for the root itself."""
        rel = os.path.relpath(path, self.root)
        if rel == "." or rel.startswith(".." + os.sep) or rel == "..":
            return None
        return rel.split(os.sep)

    def wants(self, path: str, is_dir: bool) -> bool:
        """True for a folder with no excluded part, or a file of a known type with none."""
        parts = self._parts(path)
        if parts is None or any(is_excluded(part, self.patterns) for part in parts):
            return False
        return is_dir or file_type(Path(path)) is not None

    def lists(self, path: str, is_dir: bool) -> bool:
        """True for what a sync lists as not read: a hidden file or folder (not what is inside a hidden folder: the
        folder is the one row), or a file of a type Trove does not read; never a name the user's patterns exclude."""
        parts = self._parts(path)
        if parts is None or any(matches_pattern(part, self.patterns) for part in parts):
            return False
        if any(part.startswith(".") for part in parts[:-1]):
            return False
        return parts[-1].startswith(".") or (not is_dir and file_type(Path(path)) is None)


class FolderEventHandler(FileSystemEventHandler):
    """Maps watchdog events for one folder onto a Debouncer (runs on watchdog's dispatch thread)."""

    def __init__(self, paths: PathFilter, sink: Debouncer) -> None:
        super().__init__()
        self.paths = paths
        self.sink = sink

    def dispatch(self, event: FileSystemEvent) -> None:
        # Synthetic events are watchdog re-announcing the content of a moved or moved-in folder:
        # the folder's own event already covers them (one folder sync or one path rewrite).
        if event.is_synthetic:
            return
        src = os.fsdecode(event.src_path)
        if isinstance(event, (FileMovedEvent, DirMovedEvent)):
            self._moved(src, os.fsdecode(event.dest_path), event.is_directory)
        elif isinstance(event, _CHANGE_EVENTS) and self._matters(src, event.is_directory):
            self.sink.changed(src, event.is_directory)

    def _matters(self, path: str, is_dir: bool) -> bool:
        return self.paths.wants(path, is_dir) or self.paths.lists(path, is_dir)

    def _moved(self, src: str, dest: str, is_dir: bool) -> None:
        if self.paths.wants(src, is_dir) and self.paths.wants(dest, is_dir):
            self.sink.moved(src, dest, is_dir)
            return
        # Not a move of something read (e.g. an editor's hidden temp file renamed over the real one, a file renamed
        # to a backup "notes.txt~", a folder hidden by a rename): each end is brought up to date on its own, so a
        # hidden or unsupported end is listed (or forgotten) as a sync would, and a read one is read.
        for path in (src, dest):
            if self._matters(path, is_dir):
                self.sink.changed(path, is_dir)


@dataclass(frozen=True)
class ObserverStatus:
    """Which kind of observer watches a folder, and why it is polling if it is."""

    polling: bool
    reason: str = ""


ObserverFactory = Callable[[], BaseObserver]


class FolderObserver:
    """Watches one folder recursively; native first, polling when the native observer cannot start."""

    def __init__(self, root: str, handler: FolderEventHandler, *, poll_seconds: float = 2.0,
                 native_factory: ObserverFactory = Observer) -> None:
        self.root = root
        self.handler = handler
        self.poll_seconds = poll_seconds
        self._native_factory = native_factory
        self._observer: BaseObserver | None = None
        self.status = ObserverStatus(polling=False)

    def start(self, *, force_polling: bool = False) -> ObserverStatus:
        """Start watching. Returns whether it polls (and why). Raises OSError only if polling fails too."""
        reason = "asked to poll" if force_polling else ""
        if not force_polling:
            try:
                self._observer = self._started(self._native_factory())
                self.status = ObserverStatus(polling=False)
                return self.status
            except Exception as exc:  # ENOSPC/EMFILE from inotify, or a platform without a native observer
                reason = _plain_reason(exc)
                log.warning("native watching failed for %s (%s); polling instead", self.root, reason)
        self._observer = self._started(PollingObserver(timeout=self.poll_seconds))
        self.status = ObserverStatus(polling=True, reason=reason)
        return self.status

    def _started(self, observer: BaseObserver) -> BaseObserver:
        try:
            observer.schedule(self.handler, self.root, recursive=True)
            observer.start()
        except BaseException:
            _stop_quietly(observer)
            raise
        return observer

    def alive(self) -> bool:
        """False when the observer thread or one of its emitters died (e.g. a watch could not be added later)."""
        obs = self._observer
        return obs is not None and obs.is_alive() and all(e.is_alive() for e in obs.emitters)

    def stop(self) -> None:
        """Stop and join the observer's threads."""
        obs, self._observer = self._observer, None
        if obs is not None:
            _stop_quietly(obs)


def _stop_quietly(observer: BaseObserver) -> None:
    try:
        observer.stop()
        if observer.is_alive():
            observer.join(timeout=10)
    except Exception:  # stopping half-started observers can raise; nothing is left to clean up
        log.debug("error while stopping an observer", exc_info=True)


def _plain_reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno is not None:
        text = exc.strerror or str(exc)
        if "limit" in text:
            return f"the system's limit on watched folders was reached ({text})"
        return text
    return f"{type(exc).__name__}: {exc}"
