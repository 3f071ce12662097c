"""LibraryWatcher: keeps every folder of a Library in sync with the disk, live.

Threads: one watchdog observer per folder feeds a Debouncer; one sync thread (this module) reconciles on
start and every `settings.rescan_minutes`, checks folder roots every `check_seconds`, and applies what
the debouncer says is ready through the Library facade. All folder bookkeeping lives on the sync thread.

Folder states: active (watched and applied), paused (watched; ready work is held and applied on resume),
offline (root missing or an empty mount point: its index stays searchable, nothing is removed; when the
root returns the folder is reconciled and watched again). Removing a folder purges it (Library does).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from watchdog.observers import Observer

from desktop_app.core.db import connect
from desktop_app.core.events import Notice
from desktop_app.core.library import root_available
from desktop_app.core.log import get_logger
from desktop_app.core.watch.apply import OpRunner
from desktop_app.core.watch.debounce import Debouncer, Move, Op
from desktop_app.core.watch.observer import FolderEventHandler, FolderObserver, ObserverFactory, PathFilter

log = get_logger("watch")

RETRY_SECONDS = 10.0  # a failed startup reconcile is tried again this soon, not at the next rescan
MAX_HELD = 10_000  # held operations per paused folder; beyond that, resume reconciles the folder instead


@dataclass
class _Folder:
    """Sync-thread bookkeeping for one library folder."""

    id: int
    path: str
    state: str
    observer: FolderObserver | None = None
    held: list[Op] = field(default_factory=list)
    held_overflow: bool = False
    fresh: bool = True  # not yet watched or reconciled by us
    was_mount: bool | None = None  # the root was a mount point when we last saw it available


@dataclass(frozen=True)
class FolderWatchStatus:
    """How one folder is watched, for the UI and `trove watch`."""

    path: str
    state: str
    watching: bool
    polling: bool
    held: int


class LibraryWatcher:
    """Live sync for a Library: `start()`, `stop()`; progress and notices go to `library.subscribe` listeners."""

    def __init__(self, library, *, native_factory: ObserverFactory = Observer, poll_seconds: float = 2.0,
                 check_seconds: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.library = library
        self.check_seconds = check_seconds
        self.poll_seconds = poll_seconds
        self._native_factory = native_factory
        self._clock = clock
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._refresh_due = False
        self._rescan_due = False
        self._told_polling: set[str] = set()
        self._last_error = ""
        self._folders: dict[str, _Folder] = {}
        self._status: tuple[FolderWatchStatus, ...] = ()
        self._thread: threading.Thread | None = None
        self._lifecycle = threading.Lock()
        self.debouncer = Debouncer(library.settings.debounce_seconds, on_event=self._on_event)
        self.runner = OpRunner(library, should_stop=self._stop.is_set, clock=clock)

    # ---- public API (any thread) ---------------------------------------------------------------

    def start(self) -> None:
        """Start watching (reconciles every folder first, in the background). No-op when running."""
        with self._lifecycle:
            if self._thread is not None and self._thread.is_alive():
                return
            self._stop.clear()
            self._idle.clear()
            self._thread = threading.Thread(target=self._run, name="trove-watch", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 120.0) -> None:
        """Stop observers and the sync thread and join them (the file in flight is finished first)."""
        with self._lifecycle:
            self._stop.set()
            self._wake.set()
            if self._thread is not None:
                self._thread.join(timeout)
                if self._thread.is_alive():
                    log.error("watch thread did not stop within %.0fs", timeout)
            self._thread = None

    @property
    def running(self) -> bool:
        """True while the sync thread runs."""
        return self._thread is not None and self._thread.is_alive()

    def folders_changed(self) -> None:
        """A folder was added, removed, paused or resumed: look at the folder list now."""
        self._refresh_due = True
        self._idle.clear()
        self._wake.set()

    def rescan(self) -> None:
        """Reconcile every folder now (as the periodic safety rescan does)."""
        self._rescan_due = True
        self._idle.clear()
        self._wake.set()

    def pause(self, path) -> None:
        """Pause a folder: changes are remembered, not applied, until resume()."""
        self.library.set_folder_state(path, "paused")

    def resume(self, path) -> None:
        """Resume a paused folder: what happened meanwhile is applied now."""
        self.library.set_folder_state(path, "active")

    def status(self) -> tuple[FolderWatchStatus, ...]:
        """A snapshot of how each folder is watched."""
        return self._status

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until the startup reconcile is done and no event is pending (keyword phase). False on timeout."""
        return self._idle.wait(timeout)

    def _on_event(self) -> None:
        self._idle.clear()
        self._wake.set()

    # ---- the sync thread -----------------------------------------------------------------------

    def _run(self) -> None:
        conn = self._conn = connect(self.library.db_path, readonly=True)
        try:
            self._refresh_folders(conn)
            for folder in list(self._folders.values()):
                folder.fresh = False
                self._check_folder(folder)  # observers first, so nothing changed during the reconcile is missed
            reconciled = self._guarded(self.runner.reconcile_all)  # a failure here used to end the thread
            self._publish_status()
            self._next_rescan = self._clock() + (self._rescan_interval() if reconciled else RETRY_SECONDS)
            self._next_check = self._clock() + self.check_seconds
            while not self._stop.is_set():
                self._mark_idle()
                self._wake.wait(self._wait_timeout())
                self._wake.clear()
                if not self._stop.is_set():
                    self._step_safely(conn)
        finally:
            for folder in self._folders.values():
                self._stop_observer(folder)
            conn.close()
            self._idle.set()

    def _step_safely(self, conn) -> None:
        self._guarded(lambda: self._step(conn))

    def _guarded(self, work) -> bool:
        """Run `work`; on any failure log it, tell the person once, and keep the thread alive (False)."""
        try:
            work()
        except Exception as exc:  # keep watching; the next rescan repairs whatever this step missed
            log.exception("live sync step failed")
            message = f"Live sync hit an error and will retry: {exc}"
            if message != self._last_error:  # once per distinct error, not once a second
                self.library.publish(Notice("error", message))
            self._last_error = message
            self._stop.wait(1.0)
            return False
        self._last_error = ""
        return True


    def _step(self, conn) -> None:
        now = self._clock()
        if self._refresh_due or now >= self._next_check:
            self._refresh_due = False
            self._next_check = now + self.check_seconds
            self._refresh_folders(conn)
            for folder in list(self._folders.values()):
                self._check_folder(folder)
                if folder.fresh:  # added while we watch: watched above, now indexed
                    folder.fresh = False
                    if folder.state == "active":
                        self.runner.reconcile_folder(folder.path)
            self._publish_status()
        if self._rescan_due or now >= self._next_rescan:
            self._rescan_due = False
            self._next_rescan = now + self._rescan_interval()
            self.runner.reconcile_all()
        ops = self.debouncer.pop_ready()
        if ops:
            self._apply(ops)

    def _wait_timeout(self) -> float:
        if len(self.debouncer):
            return max(0.02, min(0.25, self.debouncer.quiet / 4))
        return max(0.05, min(self.check_seconds, self._next_rescan - self._clock()))

    def _rescan_interval(self) -> float:
        return max(self.library.settings.rescan_minutes, 0.05) * 60.0

    def _mark_idle(self) -> None:
        if not len(self.debouncer) and not self._rescan_due and not self._refresh_due:
            self._idle.set()
            if len(self.debouncer):  # an event slipped in between: not idle after all
                self._idle.clear()

    # ---- folders -------------------------------------------------------------------------------

    def _refresh_folders(self, conn) -> None:
        rows = {path: (fid, state) for fid, path, state in conn.execute("SELECT id, path, state FROM folders")}
        for path in [p for p in self._folders if p not in rows]:
            folder = self._folders.pop(path)  # removed from the library: Library already purged it
            self._stop_observer(folder)
            self.debouncer.discard_under(path)
        for path, (fid, state) in rows.items():
            folder = self._folders.get(path)
            if folder is None or folder.id != fid:
                if folder is not None:
                    self._stop_observer(folder)
                self._folders[path] = _Folder(fid, path, state)
            elif folder.state != state:
                self._state_changed(folder, state)

    def _state_changed(self, folder: _Folder, state: str) -> None:
        previous, folder.state = folder.state, state
        log.info("folder %s: %s -> %s", folder.path, previous, state)
        if state == "offline":
            self._stop_observer(folder)
        elif state == "active" and previous == "paused":
            self._replay_held(folder)

    def _gone(self, folder: _Folder) -> bool:
        """The root vanished: missing, or it was a mount point and is not any more (an unmounted share leaves an
        empty folder behind, which must not read as "every file deleted")."""
        if not root_available(Path(folder.path)):
            return True
        mounted = os.path.ismount(folder.path)
        if folder.was_mount is None:
            folder.was_mount = mounted
        return folder.was_mount and not mounted

    def _back(self, folder: _Folder) -> bool:
        """An offline root is usable again: it has entries, or it is an empty folder with nothing indexed."""
        try:
            with os.scandir(folder.path) as entries:
                if any(True for _ in entries):
                    folder.was_mount = os.path.ismount(folder.path)
                    return True
        except OSError:
            return False
        return self._conn.execute("SELECT 1 FROM documents WHERE folder_id = ? LIMIT 1", (folder.id,)).fetchone() is None

    def _available(self, folder: _Folder) -> bool:
        return self._back(folder) if folder.state == "offline" else not self._gone(folder)

    def _check_folder(self, folder: _Folder) -> None:
        available = self._available(folder)
        if folder.state == "active" and not available:
            self._go_offline(folder)
        elif folder.state == "offline" and available:
            self._come_back(folder)
        elif folder.state == "paused" and not available:
            self._stop_observer(folder)  # events from a vanished tree are not worth remembering
            folder.held.clear()
        elif available and folder.state in ("active", "paused"):
            self._ensure_observer(folder)

    def _go_offline(self, folder: _Folder) -> None:
        self._stop_observer(folder)
        self.debouncer.discard_under(folder.path)
        folder.held.clear()
        folder.state = "offline"
        self.library.set_folder_state(folder.path, "offline")
        self.library.publish(Notice("warning", f"Folder is offline (missing or unmounted): {folder.path}. "
                                               "Its documents stay searchable.", folder.path))

    def _come_back(self, folder: _Folder) -> None:
        folder.state = "active"
        self.library.set_folder_state(folder.path, "active")
        self.library.publish(Notice("info", f"Folder is back online: {folder.path}", folder.path))
        self._ensure_observer(folder)
        self.runner.reconcile_folder(folder.path)

    def _ensure_observer(self, folder: _Folder) -> None:
        if folder.observer is not None and folder.observer.alive():
            return
        lost_events = folder.observer is not None  # it died under us: events may be missing
        force_polling = lost_events and not folder.observer.status.polling
        self._stop_observer(folder)
        handler = FolderEventHandler(PathFilter(folder.path, self.library.settings.excluded_patterns), self.debouncer)
        observer = FolderObserver(folder.path, handler, poll_seconds=self.poll_seconds,
                                  native_factory=self._native_factory)
        try:
            status = observer.start(force_polling=force_polling)
        except OSError as exc:
            log.warning("cannot watch %s: %s", folder.path, exc)
            return
        folder.observer = observer
        if status.polling:
            self._tell_polling(folder.path, status.reason or "the live watcher stopped")
        if lost_events and folder.state == "active":
            self.runner.reconcile_folder(folder.path)

    def _tell_polling(self, path: str, reason: str) -> None:
        if path in self._told_polling:
            return
        self._told_polling.add(path)
        self.library.publish(Notice(
            "warning", f"Trove cannot get instant change notifications for {path} ({reason}), so it checks that "
                       f"folder for changes every {self.poll_seconds:g} seconds instead. Changes there may take a "
                       "little longer to show up. (On Linux, raising fs.inotify.max_user_watches fixes this.)", path))

    @staticmethod
    def _stop_observer(folder: _Folder) -> None:
        if folder.observer is not None:
            folder.observer.stop()
            folder.observer = None

    # ---- operations ----------------------------------------------------------------------------

    def _apply(self, ops: list[Op]) -> None:
        now_ops: list[Op] = []
        for op in ops:
            folder = self._folder_of(op.dest if isinstance(op, Move) else op.path)
            if folder is None and isinstance(op, Move):
                folder = self._folder_of(op.src)  # moved out of every folder: still forget the source
            if folder is None or folder.state == "offline":
                continue  # offline: the reconcile when it returns catches up
            if folder.state == "paused":
                self._hold(folder, op)
            else:
                now_ops.append(op)
        if now_ops:
            self.runner.run(now_ops)

    def _hold(self, folder: _Folder, op: Op) -> None:
        if len(folder.held) >= MAX_HELD:
            folder.held_overflow = True
        else:
            folder.held.append(op)

    def _replay_held(self, folder: _Folder) -> None:
        ops, overflow = folder.held, folder.held_overflow
        folder.held, folder.held_overflow = [], False
        if not self._available(folder):
            return  # the next check marks it offline
        if overflow:
            self.runner.reconcile_folder(folder.path)
        elif ops:
            self.runner.run(ops)

    def _folder_of(self, path: str) -> _Folder | None:
        best = None
        for root, folder in self._folders.items():
            if path == root or path.startswith(root.rstrip(os.sep) + os.sep):
                if best is None or len(root) > len(best.path):
                    best = folder
        return best

    def _publish_status(self) -> None:
        self._status = tuple(
            FolderWatchStatus(f.path, f.state, f.observer is not None, bool(f.observer and f.observer.status.polling),
                              len(f.held))
            for f in self._folders.values())
