"""A background indexing phase: one thread that works through what is pending whenever it is woken.

The vector phase (EmbedWorker) and the OCR phase (OcrWorker) are both this: `wake()` after the keyword phase
wrote something, `wait_idle()` to block until nothing is pending, `stop()` when the library closes. A failure
is reported once as a Notice, kept in meta (so `trove stats` in another process shows it) and never kills the
thread; the next wake tries again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from desktop_app.core.errors import KnownError
from desktop_app.core.events import IndexProgress, Notice, NoticeLevel
from desktop_app.core.log import get_logger
from desktop_app.core.store.base import Store

log = get_logger("index")


class BackgroundPhase:
    """Runs `run_pending()` on its own thread each time it is woken. Subclasses name the phase and do the work."""

    name = "phase"  # thread name, and how notices name the phase ("Semantic indexing stopped: …")
    verb = "work"  # how an unexpected failure is named ("embedding failed: …")
    error_key = ""  # meta key holding the last failure, for other processes

    def __init__(self, store: Store, *, emit: Callable[[IndexProgress], None] | None = None,
                 notify: Callable[[Notice], None] | None = None) -> None:
        self.store = store
        self.emit = emit or (lambda _p: None)
        self.notify = notify or (lambda _n: None)
        self.error: str | None = None
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._stop = threading.Event()
        self._state = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def stopping(self) -> bool:
        """True once stop() was called (work checks it between items)."""
        return self._stop.is_set()

    def wake(self) -> None:
        """There may be new work: start (or continue)."""
        with self._state:
            if self._stop.is_set():
                return  # stopped for good (the library is closing)
            self._idle.clear()
            self._wake.set()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name=f"trove-{self.verb}", daemon=True)
                self._thread.start()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until nothing is pending (or the phase failed). False on timeout."""
        return self._idle.wait(timeout)

    def stop(self, timeout: float = 30.0) -> bool:
        """Stop after the item in flight and join the thread. False if it is still running after `timeout` s."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.running()

    def running(self) -> bool:
        """True while this phase's thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def run_pending(self) -> int:
        """Do everything pending; returns how much was done."""
        raise NotImplementedError

    def _loop(self) -> None:
        try:
            while not self._stop.is_set():
                self._wake.wait()
                self._wake.clear()
                if self._stop.is_set():
                    break
                try:
                    done = self.run_pending()
                except KnownError as exc:
                    self._report_failure(str(exc))
                except Exception as exc:  # keep the thread alive; search uses what exists
                    log.exception("%s failed", self.verb)
                    self._report_failure(f"{self.verb} failed: {type(exc).__name__}: {exc}")
                else:
                    if self.error is not None or done:
                        self._record_error(None)
                    self.error = None
                with self._state:
                    if not self._wake.is_set():
                        self._idle.set()
        finally:
            self._idle.set()

    def _report_failure(self, message: str) -> None:
        if self.error != message:
            self.notify(Notice(NoticeLevel.ERROR, f"{self.name.capitalize()} stopped: {message}"))
        self.error = message
        self._record_error(message)

    def _record_error(self, message: str | None) -> None:
        """Keep the last failure in the database, so `trove stats` in another process can show it."""
        if not self.error_key:
            return
        try:
            self.store.set_meta(self.error_key, message)
        except KnownError as exc:  # a locked or full database must not hide the original failure
            log.warning("could not record the %s error: %s", self.name, exc)
