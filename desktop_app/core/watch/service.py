"""LibraryWatcher: keeps every folder of a Library in sync with the disk, live.

Threads: one watchdog observer per folder feeds a Debouncer; one sync thread (this module) reconciles on
start and every `settings.rescan_minutes`, checks folder roots every `check_seconds`, and applies what
the debouncer says is ready through the Library facade. All folder bookkeeping lives on the sync thread.

Folder states: active (watched and applied), paused (watched; ready work is held and applied on resume),
offline (root missing or an empty mount point: its index stays searchable, nothing is removed; when the
root returns the folder is reconciled and watched again). Removing a folder purges it (Library does).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from watchdog.observers import Observer

from desktop_app.core.events import Notice, NoticeLevel
from desktop_app.core.folders import deepest_folder
from desktop_app.core.log import get_logger
from desktop_app.core.store.rows import FolderState
from desktop_app.core.watch.apply import OpRunner
from desktop_app.core.watch.debounce import Debouncer, Move, Op
from desktop_app.core.watch.folder import FolderObservers, WatchedFolder
from desktop_app.core.watch.observer import ObserverFactory
from desktop_app.core.watch.target import WatchTarget

log = get_logger("watch")

RETRY_SECONDS = 10.0  # a failed startup reconcile is tried again this soon, not at the next rescan
MAX_HELD = 10_000  # held operations per paused folder; beyond that, resume reconciles the folder instead


@dataclass(frozen=True)
class FolderWatchStatus:
    """How one folder is watched, for the UI and `trove watch`."""

    path: str
    state: FolderState
    watching: bool
    polling: bool
    held: int


class LibraryWatcher:
    """Live sync for a Library: `start()`, `stop()`; progress and notices go to `library.subscribe` listeners."""

    def __init__(self, library: WatchTarget, *, native_factory: ObserverFactory = Observer, poll_seconds: float = 2.0,
                 check_seconds: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.library = library
        self.monitor = library.monitor
        self.check_seconds = check_seconds
        self.poll_seconds = poll_seconds
        self._clock = clock
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._refresh_due = False
        self._rescan_due = False
        self._last_error = ""
        self._folders: dict[str, WatchedFolder] = {}
        self._status: tuple[FolderWatchStatus, ...] = ()
        self._thread: threading.Thread | None = None
        self._lifecycle = threading.Lock()
        self.debouncer = Debouncer(library.settings.debounce_seconds, on_event=self._on_event)
        self.runner = OpRunner(library, should_stop=self._stop.is_set, clock=clock)
        self.observers = FolderObservers(self.debouncer, lambda: library.settings, library.publish,
                                         poll_seconds=poll_seconds, native_factory=native_factory)

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

    def pause(self, path) -> None:
        """Pause a folder: changes are remembered, not applied, until resume()."""
        self.library.set_folder_state(path, FolderState.PAUSED)

    def resume(self, path) -> None:
        """Resume a paused folder: what happened meanwhile is applied now."""
        self.library.set_folder_state(path, FolderState.ACTIVE)

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
        try:
            self._refresh_folders()
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
                    self._step_safely()
        finally:
            for folder in self._folders.values():
                self.observers.stop(folder)
            self._idle.set()

    def _step_safely(self) -> None:
        self._guarded(self._step)

    def _guarded(self, work: Callable[[], object]) -> bool:
        """Run `work`; on any failure log it, tell the person once, and keep the thread alive (False)."""
        try:
            work()
        except Exception as exc:  # keep watching; the next rescan repairs whatever this step missed
            log.exception("live sync step failed")
            message = f"Live sync hit an error and will retry: {exc}"
            if message != self._last_error:  # once per distinct error, not once a second
                self.library.publish(Notice(NoticeLevel.ERROR, message))
            self._last_error = message
            self._stop.wait(1.0)
            return False
        self._last_error = ""
        return True

    def _step(self) -> None:
        now = self._clock()
        if self._refresh_due or now >= self._next_check:
            self._refresh_due = False
            self._next_check = now + self.check_seconds
            self._refresh_folders()
            for folder in list(self._folders.values()):
                self._check_folder(folder)
                if folder.fresh:  # added while we watch: watched above, now indexed
                    folder.fresh = False
                    if folder.state == FolderState.ACTIVE:
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

    def _refresh_folders(self) -> None:
        rows = {row.path: row for row in self.monitor.rows()}
        for path in [p for p in self._folders if p not in rows]:
            self.observers.stop(self._folders.pop(path))  # removed from the library: Library already purged it
            self.debouncer.discard_under(path)
        for path, row in rows.items():
            folder = self._folders.get(path)
            if folder is None or folder.row.id != row.id:
                if folder is not None:
                    self.observers.stop(folder)
                self._folders[path] = WatchedFolder(row)
            else:
                self._follow(folder, row.state)

    def _check_folder(self, folder: WatchedFolder) -> None:
        """Let the monitor bring the folder's state in line with its root, then watch (or stop) accordingly."""
        if folder.state == FolderState.PAUSED:
            if self.monitor.available(folder.row):
                self._ensure_observer(folder)
            else:
                self.observers.stop(folder)  # events from a vanished tree are not worth remembering
                folder.held.clear()
            return
        state = self.monitor.check(folder.row)
        if state != folder.state:
            self._follow(folder, state)
        elif state == FolderState.ACTIVE:
            self._ensure_observer(folder)

    def _follow(self, folder: WatchedFolder, state: FolderState) -> None:
        """React to a state FolderMonitor recorded (read from its rows or answered by its check): the one place
        where the watcher's observers, held work and reconciles follow a folder's transitions."""
        previous = folder.state
        if state == previous:
            return
        folder.row = replace(folder.row, state=state)
        log.info("folder %s: %s -> %s", folder.path, previous, state)
        if state == FolderState.OFFLINE:  # the reconcile when it returns catches up; nothing here is worth keeping
            self.observers.stop(folder)
            self.debouncer.discard_under(folder.path)
            folder.held.clear()
        elif state == FolderState.ACTIVE and previous == FolderState.PAUSED:
            self._replay_held(folder)
        elif state == FolderState.ACTIVE and previous == FolderState.OFFLINE:
            self._ensure_observer(folder)
            self.runner.reconcile_folder(folder.path)

    def _ensure_observer(self, folder: WatchedFolder) -> None:
        if self.observers.ensure(folder) and folder.state == FolderState.ACTIVE:
            self.runner.reconcile_folder(folder.path)  # its observer died under us: events may be missing

    # ---- operations ----------------------------------------------------------------------------

    def _apply(self, ops: list[Op]) -> None:
        now_ops: list[Op] = []
        for op in ops:
            folder = self._folder_of(op.dest if isinstance(op, Move) else op.path)
            if folder is None and isinstance(op, Move):
                folder = self._folder_of(op.src)  # moved out of every folder: still forget the source
            if folder is None or folder.state == FolderState.OFFLINE:
                continue  # offline: the reconcile when it returns catches up
            if folder.state == FolderState.PAUSED:
                self._hold(folder, op)
            else:
                now_ops.append(op)
        if now_ops:
            self.runner.run(now_ops)

    def _hold(self, folder: WatchedFolder, op: Op) -> None:
        if len(folder.held) >= MAX_HELD:
            folder.held_overflow = True
        else:
            folder.held.append(op)

    def _replay_held(self, folder: WatchedFolder) -> None:
        ops, overflow = folder.held, folder.held_overflow
        folder.held, folder.held_overflow = [], False
        if not self.monitor.available(folder.row):
            return  # the next check marks it offline
        if overflow:
            self.runner.reconcile_folder(folder.path)
        elif ops:
            self.runner.run(ops)

    def _folder_of(self, path: str) -> WatchedFolder | None:
        row = deepest_folder([f.row for f in self._folders.values()], path)
        return self._folders.get(row.path) if row else None

    def _publish_status(self) -> None:
        self._status = tuple(
            FolderWatchStatus(f.path, f.state, f.observer is not None, bool(f.observer and f.observer.status.polling),
                              len(f.held))
            for f in self._folders.values())
