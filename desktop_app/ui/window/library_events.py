"""Brings the Library's IndexProgress and Notice events (sent from worker threads) onto the UI thread, and carries the
LibraryChanged announcements (ui/window/changes.py) the panes subscribe to."""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Signal

from desktop_app.core.events import IndexProgress, Notice
from desktop_app.ui.window.changes import ChangeKind, LibraryChanged


class LibraryEvents(QObject):
    """Re-emits library events as Qt signals on the UI thread, and announces what changed.

    Progress is coalesced: the indexer reports every file, and a thousand queued events would be a
    thousand slot calls; here at most one delivery is pending and it carries the latest event per phase.
    Each delivery of progress announces DOCUMENTS, and a notice about a folder (it went offline) FOLDERS;
    the panes announce their own changes with `announce`.

    Signals:
        progress(IndexProgress): the newest progress of a phase (scan, keyword, semantic, idle).
        notice(Notice): something the user should read (an error, an offline folder).
        changed(LibraryChanged): something the panes show changed.
    """

    progress = Signal(object)
    notice = Signal(object)
    changed = Signal(object)
    _poke = Signal()

    def __init__(self, library, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lock = threading.Lock()
        self._latest: dict[str, IndexProgress] = {}
        self._scheduled = False
        self._poke.connect(self.on_poke)
        self._unsubscribe = library.subscribe(self._listen)

    def _listen(self, event: object) -> None:  # any thread
        if isinstance(event, Notice):
            self.notice.emit(event)
            if event.path:
                self.changed.emit(LibraryChanged(ChangeKind.FOLDERS))
            return
        if not isinstance(event, IndexProgress):
            return
        with self._lock:
            self._latest[event.phase] = event
            if self._scheduled:
                return
            self._scheduled = True
        self._poke.emit()

    def on_poke(self) -> None:
        with self._lock:
            events = sorted(self._latest.values(), key=lambda e: e.at)
            self._latest.clear()
            self._scheduled = False
        for event in events:
            self.progress.emit(event)
        if events:
            self.announce(ChangeKind.DOCUMENTS)

    def announce(self, kind: ChangeKind) -> None:
        """Tell the subscribed panes that `kind` changed (on the UI thread)."""
        self.changed.emit(LibraryChanged(kind))

    def detach(self) -> None:
        """Stop listening (before the library closes)."""
        self._unsubscribe()
