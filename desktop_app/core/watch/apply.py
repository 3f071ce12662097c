"""Apply debounced operations to the Library, with progress and per-file errors published as events."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from desktop_app.core.errors import KnownError
from desktop_app.core.events import IndexProgress, Notice, NoticeLevel, ProgressPhase
from desktop_app.core.index.indexer import SyncReport
from desktop_app.core.log import get_logger
from desktop_app.core.watch.debounce import Change, Move, Op
from desktop_app.core.watch.target import WatchTarget

log = get_logger("watch")

BATCH = 50  # changed paths per sync_paths call: small enough to report progress and stop promptly


class OpRunner:
    """Runs changes and moves through the Library facade on the watcher's sync thread."""

    def __init__(self, library: WatchTarget, *, should_stop: Callable[[], bool] = lambda: False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.library = library
        self.should_stop = should_stop
        self.clock = clock
        self.total = SyncReport()  # everything applied since the watcher started, for `status()`

    def run(self, ops: Sequence[Op]) -> SyncReport:
        """Apply `ops` in order (moves in place, consecutive changes batched). Returns what was done."""
        report, started, done = SyncReport(), self.clock(), 0
        batch: list[str] = []
        for op in ops:
            if self.should_stop():
                break
            if isinstance(op, Move):
                done += self._flush(batch, report)
                self._guarded(partial(self.library.move_path, op.src, op.dest), report, op.dest)
                done += 1
            else:
                batch.append(op.path)
                if len(batch) >= BATCH:
                    done += self._flush(batch, report)
                    self._progress(len(ops), done, report, batch_last=op, started=started)
        done += self._flush(batch, report)
        self.total.merge(report)
        self.library.publish(IndexProgress(ProgressPhase.IDLE, files_queued=len(ops), files_done=report.indexed,
                                           files_failed=report.failed, bytes_done=report.bytes))
        return report

    def reconcile_folder(self, root: str) -> SyncReport:
        """Walk one folder and fix whatever differs (after it came back, or its observer lost events)."""
        report = SyncReport()
        self._guarded(lambda: self.library.sync_paths([root]), report, root)
        self.total.merge(report)
        return report

    def reconcile_all(self) -> SyncReport:
        """The startup and periodic safety rescan of every non-paused folder (keyword phase here)."""
        report = SyncReport()
        self._guarded(lambda: self.library.sync(wait=False), report, "")
        self.total.merge(report)
        return report

    def _flush(self, batch: list[str], report: SyncReport) -> int:
        if not batch:
            return 0
        paths, n = list(batch), len(batch)
        batch.clear()
        self._guarded(lambda: self.library.sync_paths(paths), report, paths[-1])
        return n

    def _guarded(self, action: Callable[[], SyncReport], report: SyncReport, where: str) -> None:
        try:
            result = action()
        except KnownError as exc:  # disk full, database locked: tell the user, keep watching
            log.warning("sync of %s failed: %s", where, exc)
            self.library.publish(Notice(NoticeLevel.ERROR, str(exc), where))
            return
        report.merge(result)
        report.seconds += result.seconds
        for path, reason in result.errors:
            self.library.publish(Notice(NoticeLevel.ERROR, f"Could not index {Path(path).name}: {reason}", path))

    def _progress(self, queued: int, done: int, report: SyncReport, *, batch_last: Change, started: float) -> None:
        elapsed = max(self.clock() - started, 1e-6)
        rate = done / elapsed
        self.library.publish(IndexProgress(
            ProgressPhase.KEYWORD, files_queued=queued, files_done=done - report.failed, files_failed=report.failed,
            current_file=batch_last.path, bytes_done=report.bytes, rate=rate,
            eta_seconds=(queued - done) / rate if rate else None))
