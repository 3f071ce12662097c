"""One task runner: work runs on thread pools, results and progress come back to the UI thread as callbacks.

Modelled on Anki's aqt/taskman.py: a widget never touches a worker thread and a worker never touches a
widget. `run(fn, on_done, on_error, lane=...)` calls `fn()` on a pool thread; `on_done(result)` or
`on_error(exc)` then runs on the UI thread. With `on_progress`, `fn(report)` gets a `report(value)` to call as
often as it likes from the worker; each value reaches `on_progress(value)` on the UI thread, in order, before
`on_done`. Both travel as queued Qt signals on the runner, which lives on the UI thread: this is the one way
back to it (a streamed token, a summary's step, a download's bytes).

Lanes keep kinds of work from starving each other: a long re-index must not delay a keystroke's search.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, Signal

from desktop_app.core.errors import KnownError
from desktop_app.core.log import get_logger
from desktop_app.ui import crash

log = get_logger("ui")


# lane -> threads. search: two, so a slow query cannot hold up the next one; index and chat: one, their work
# is serial anyway; io: short library calls (folder list, stats, state changes); download: a model download, which
# takes minutes and must not hold an io thread; rerank: the search list's second pass (a model reading passages),
# which must never take a search thread from the next keystroke; network: a connection test or an invite join
# against a server the person typed in, which may hang until its connect timeout (shutdown does not wait for it).
class Lane(StrEnum):
    """The closed set of lanes (a lane is given as a member or its string: lane="search" is Lane.SEARCH)."""

    SEARCH = "search"
    INDEX = "index"
    CHAT = "chat"
    IO = "io"
    DOWNLOAD = "download"
    RERANK = "rerank"
    NETWORK = "network"


LANES = {Lane.SEARCH: 2, Lane.INDEX: 1, Lane.CHAT: 1, Lane.IO: 2, Lane.DOWNLOAD: 1, Lane.RERANK: 1, Lane.NETWORK: 1}
# Lanes whose running work shutdown leaves behind: it touches no library (only the server it tries), its result is
# dropped like any after shutdown, and a dead server must not hold up closing the window.
UNWAITED = {Lane.NETWORK}


class _Job(QRunnable):
    def __init__(self, task_id: int, fn: Callable[..., Any], runner: TaskRunner,
                 on_done: Callable[[Any], None] | None, on_error: Callable[[BaseException], None] | None,
                 on_progress: Callable[[Any], None] | None) -> None:
        super().__init__()
        self.task_id, self.fn, self.runner = task_id, fn, runner
        self.on_done, self.on_error, self.on_progress = on_done, on_error, on_progress

    def report(self, value: Any) -> None:  # on the pool thread, as often as the task likes
        self.runner._progressed.emit(self.on_progress, value)

    def run(self) -> None:  # on a pool thread
        try:
            result = self.fn(self.report) if self.on_progress is not None else self.fn()
        except BaseException as exc:  # noqa: BLE001 - every failure must reach the UI, not vanish in a pool
            self.runner._finished.emit(self.task_id, ("error", self.on_error), exc)
        else:
            self.runner._finished.emit(self.task_id, ("done", self.on_done), result)


class TaskRunner(QObject):
    """Runs callables off the UI thread and hands results (and progress) back on it.

    Signals:
        task_failed(str, object): a task without its own on_error raised (message, exception): a KnownError
            (its one line), or a bug when no crash hook is installed (ui/crash.py shows bugs itself).
        idle(): no task is queued or running any more.
    """

    task_failed = Signal(str, object)
    idle = Signal()
    # emitted by workers only; queued, so the slots run on the runner's (the UI) thread, in the order emitted
    _finished = Signal(object, object, object)  # (task id, (kind, callback), result or exception)
    _progressed = Signal(object, object)  # (on_progress, value)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pools: dict[str, QThreadPool] = {}
        for lane, threads in LANES.items():
            pool = QThreadPool(self)
            pool.setMaxThreadCount(threads)
            pool.setExpiryTimeout(-1)  # keep threads: a search per keystroke should not pay thread start-up
            self._pools[lane] = pool
        self._finished.connect(self.on_finished, Qt.ConnectionType.QueuedConnection)
        self._progressed.connect(self.on_progressed, Qt.ConnectionType.QueuedConnection)
        self._next_id = 0
        self._pending: set[int] = set()
        self._closed = False

    def run(self, fn: Callable[..., Any], on_done: Callable[[Any], None] | None = None,
            on_error: Callable[[BaseException], None] | None = None, *, lane: Lane | str = Lane.IO,
            on_progress: Callable[[Any], None] | None = None) -> int:
        """Queue `fn` on `lane`; returns a task id (0: not queued, the runner is shut down). With `on_progress`,
        `fn` is called as `fn(report)` and each `report(value)` becomes `on_progress(value)` on the UI thread.
        An unknown lane is a bug (ValueError naming it), never a silent default."""
        lane = Lane(lane)
        if self._closed:
            log.debug("task runner is shut down; dropped %r", fn)
            return 0
        self._next_id += 1
        self._pending.add(self._next_id)
        self._pools[lane].start(_Job(self._next_id, fn, self, on_done, on_error, on_progress))
        return self._next_id

    def pending(self) -> int:
        """Tasks queued or running."""
        return len(self._pending)

    def on_progressed(self, on_progress: Callable[[Any], None], value: Any) -> None:
        if not self._closed:
            on_progress(value)

    def on_finished(self, task_id: int, how: tuple, payload: Any) -> None:
        self._pending.discard(task_id)
        if not self._closed:
            kind, callback = how
            if kind == "done":
                if callback is not None:
                    callback(payload)
            elif callback is not None:
                callback(payload)
            elif isinstance(payload, KnownError):  # the environment's: its one line is the message
                log.error("background task failed: %s", payload)
                self.task_failed.emit(str(payload), payload)
            else:  # a bug: a crash Notice with details to copy (the plain line when no window took the hooks)
                log.error("background task failed", exc_info=payload)
                if not crash.report(payload):
                    self.task_failed.emit(f"{type(payload).__name__}: {payload}", payload)
        if not self._pending:
            self.idle.emit()

    def shutdown(self, timeout_ms: int = 30000) -> bool:
        """Drop queued work, wait for running work (not an UNWAITED lane's), and ignore its results. True if every
        waited pool finished."""
        self._closed = True
        ok = True
        for lane, pool in self._pools.items():
            pool.clear()
            if lane not in UNWAITED:
                ok = pool.waitForDone(timeout_ms) and ok
        return ok
