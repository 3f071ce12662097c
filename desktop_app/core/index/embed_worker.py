"""The semantic phase: a background thread gives vectors to chunks that have none, in batches."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from desktop_app.core.embed.base import Embedder, embed_passages
from desktop_app.core.errors import KnownError
from desktop_app.core.events import IndexProgress, Notice
from desktop_app.core.log import get_logger
from desktop_app.core.store.base import Store
from desktop_app.core.store.rows import ChunkVectors

log = get_logger("embed")


MIN_ROUND = 16  # chunks in the first round, before the rate is known


def next_round_size(last_size: int, last_seconds: float, target_seconds: float, largest: int) -> int:
    """How many chunks the next round takes so that it lasts about `target_seconds` (within [MIN_ROUND, largest])."""
    if last_seconds <= 0:
        return largest
    wanted = int(last_size * target_seconds / last_seconds)
    return max(min(MIN_ROUND, largest), min(largest, wanted))


class EmbedWorker:
    """One thread that embeds pending chunks whenever it is woken. `wait_idle()` blocks until none are left."""

    def __init__(self, store: Store, embedder: Embedder, *, batch: int = 512, round_seconds: float = 3.0,
                 emit: Callable[[IndexProgress], None] | None = None,
                 notify: Callable[[Notice], None] | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.batch = batch  # the largest round
        self.round_seconds = round_seconds
        self.emit = emit or (lambda _p: None)
        self.notify = notify or (lambda _n: None)
        self.error: str | None = None
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._stop = threading.Event()
        self._state = threading.Lock()
        self._thread: threading.Thread | None = None

    def wake(self) -> None:
        """There may be new chunks without vectors: start (or continue) embedding."""
        with self._state:
            if self._stop.is_set():
                return  # stopped for good (the library is closing)
            self._idle.clear()
            self._wake.set()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="trove-embedder", daemon=True)
                self._thread.start()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until every chunk has a vector (or embedding failed). False on timeout."""
        return self._idle.wait(timeout)

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _loop(self) -> None:
        try:
            while not self._stop.is_set():
                self._wake.wait()
                self._wake.clear()
                if self._stop.is_set():
                    break
                try:
                    self.run_pending()
                except KnownError as exc:
                    self._report_failure(str(exc))
                except Exception as exc:  # keep the thread alive; search falls back to keyword results
                    log.exception("embedding failed")
                    self._report_failure(f"embedding failed: {type(exc).__name__}: {exc}")
                with self._state:
                    if not self._wake.is_set():
                        self._idle.set()
        finally:
            self._idle.set()

    def _report_failure(self, message: str) -> None:
        if self.error != message:
            self.notify(Notice("error", f"Semantic indexing stopped: {message}"))
        self.error = message
        self._record_error(message)

    def _record_error(self, message: str | None) -> None:
        """Keep the last failure in the database, so `trove stats` in another process can show it."""
        try:
            self.store.set_meta("embed_error", message)
        except KnownError as exc:  # a locked or full database must not hide the original failure
            log.warning("could not record the embedding error: %s", exc)

    def run_pending(self) -> int:
        """Embed every pending chunk, round by round (each round one transaction). Returns how many got vectors.

        Rounds are sized to take about `round_seconds` at the measured rate, so a kill loses seconds of work and
        files become semantically searchable progressively, without making the model's batches tiny.
        """
        total = self.store.count_pending()
        done, after, started = 0, 0, time.monotonic()
        size = min(MIN_ROUND, self.batch)
        while not self._stop.is_set():
            rows = self.store.pending_chunks(size, after)
            if not rows:
                break
            after = rows[-1].id
            round_started = time.monotonic()
            vectors = embed_passages(self.embedder, [row.text for row in rows])
            done += self.store.store_vectors(
                ChunkVectors(row.id, row.text_hash, vec) for row, vec in zip(rows, vectors, strict=True))
            size = next_round_size(len(rows), time.monotonic() - round_started, self.round_seconds, self.batch)
            elapsed = time.monotonic() - started
            rate = done / elapsed if elapsed > 0 else 0.0
            self.emit(IndexProgress("semantic", chunks_embedded=done, chunks_total=max(total, done), rate=rate,
                                    eta_seconds=(max(total - done, 0) / rate) if rate else None))
        if self.error is not None or done:
            self._record_error(None)
        self.error = None
        return done
