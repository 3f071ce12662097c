"""One task runner: work runs on thread pools, results come back to the UI thread as callbacks.

Modelled on Anki's aqt/taskman.py: a widget never touches a worker thread and a worker never touches a
widget. `run(fn, on_done, on_error, lane=...)` calls `fn()` on a pool thread; `on_done(result)` or
`on_error(exc)` then runs on the UI thread, delivered through a queued Qt signal.

Lanes keep kinds of work from starving each other: a long re-index must not delay a keystroke's search.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from desktop_app.core.errors import KnownError
from desktop_app.core.log import get_logger
from desktop_app.ui import crash

log = get_logger("ui")

# lane -> threads. search: two, so a slow query cannot hold up the next one; index and chat: one, their work
# is serial anyway; io: short library calls (folder list, stats, state changes); download: a model download, which
# takes minutes and must not hold an io thread; rerank: the search list's second pass (a model reading passages),
# which must never take a search thread from the next keystroke.
class Lane(StrEnum):
    """The closed set of lanes (a lane is given as a member or its string: lane="search" is Lane.SEARCH)."""

    SEARCH = "search"
    INDEX = "index"
    CHAT = "chat"
    IO = "io"
    DOWNLOAD = "download"
    RERANK = "rerank"


LANES = {Lane.SEARCH: 2, Lane.INDEX: 1, Lane.CHAT: 1, Lane.IO: 2, Lane.DOWNLOAD: 1, Lane.RERANK: 1}


class _Relay(QObject):
    """Lives on the UI thread; workers emit on it, so the connected slot runs on the UI thread."""

    finished = Signal(object, object, object)  # (task id, callback, result or exception)


class _Job(QRunnable):
    def __init__(self, task_id: int, fn: Callable[[], Any], relay: _Relay,
                 on_done: Callable[[Any], None] | None, on_error: Callable[[BaseException], None] | None) -> None:
        super().__init__()
        self.task_id, self.fn, self.relay = task_id, fn, relay
        self.on_done, self.on_error = on_done, on_error

    def run(self) -> None:  # on a pool thread
        try:
            result = self.fn()
        except BaseException as exc:  # noqa: BLE001 - every failure must reach the UI, not vanish in a pool
            self.relay.finished.emit(self.task_id, ("error", self.on_error), exc)
        else:
            self.relay.finished.emit(self.task_id, ("done", self.on_done), result)


class TaskRunner(QObject):
    """Runs callables off the UI thread and hands results back on it.

    Signals:
        task_failed(str, object): a task without its own on_error raised (message, exception): a KnownError
            (its one line), or a bug when no crash hook is installed (ui/crash.py shows bugs itself).
        idle(): no task is queued or running any more.
    """

    task_failed = Signal(str, object)
    idle = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pools: dict[str, QThreadPool] = {}
        for lane, threads in LANES.items():
            pool = QThreadPool(self)
            pool.setMaxThreadCount(threads)
            pool.setExpiryTimeout(-1)  # keep threads: a search per keystroke should not pay thread start-up
            self._pools[lane] = pool
        self._relay = _Relay(self)
        self._relay.finished.connect(self.on_relay_finished)
        self._next_id = 0
        self._pending: set[int] = set()
        self._closed = False

    def run(self, fn: Callable[[], Any], on_done: Callable[[Any], None] | None = None,
            on_error: Callable[[BaseException], None] | None = None, *, lane: Lane | str = Lane.IO) -> int:
        """Queue `fn` on `lane`; returns a task id (0: not queued, the runner is shut down). An unknown lane is a
        bug (ValueError naming it), never a silent default."""
        lane = Lane(lane)
        if self._closed:
            log.debug("task runner is shut down; dropped %r", fn)
            return 0
        self._next_id += 1
        self._pending.add(self._next_id)
        self._pools[lane].start(_Job(self._next_id, fn, self._relay, on_done, on_error))
        return self._next_id

    def pending(self) -> int:
        """Tasks queued or running."""
        return len(self._pending)

    def on_relay_finished(self, task_id: int, how: tuple, payload: Any) -> None:
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
        """Drop queued work, wait for running work, and ignore its results. True if every pool finished."""
        self._closed = True
        ok = True
        for pool in self._pools.values():
            pool.clear()
            ok = pool.waitForDone(timeout_ms) and ok
        return ok
