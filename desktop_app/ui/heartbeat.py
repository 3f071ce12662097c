"""A 20 ms timer that measures how late the event loop serves it: the UI's own responsiveness probe.

Used by the responsiveness test and bench/ui_latency.py. A gap much longer than the interval means the
UI thread was busy (or starved of the GIL) and the window would have felt frozen for that long.

On a loaded machine part of every gap is the operating system's doing: the UI thread was ready to run but
waited for a core. On Linux the kernel counts that wait per thread (/proc/thread-self/schedstat, second field),
so each tick also records its *stall*: the gap minus that run-queue wait. A stall is time the UI thread was
running Trove's code or blocked (a lock, the GIL, a disk read) - what Trove is answerable for, whatever the load.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer


_SCHEDSTAT = Path("/proc/thread-self/schedstat")


def runqueue_wait_ns() -> int:
    """Nanoseconds the calling thread has spent ready to run but waiting for a CPU (0 where the OS does not say)."""
    try:
        return int(_SCHEDSTAT.read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0


class Heartbeat(QObject):
    """Records the time between consecutive timer ticks, in milliseconds. No signals."""

    def __init__(self, interval_ms: int = 20, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.interval_ms = interval_ms
        self.gaps_ms: list[float] = []
        self.stalls_ms: list[float] = []  # each gap minus the run-queue wait within it
        self._timer = QTimer(self, interval=interval_ms)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self.on_timeout)
        self._last = 0.0
        self._last_wait = 0

    def start(self) -> None:
        self._last = time.perf_counter()
        self._last_wait = runqueue_wait_ns()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def on_timeout(self) -> None:
        now, wait = time.perf_counter(), runqueue_wait_ns()
        gap = (now - self._last) * 1000
        self.gaps_ms.append(gap)
        self.stalls_ms.append(max(0.0, gap - (wait - self._last_wait) / 1e6))
        self._last, self._last_wait = now, wait

    def summary(self) -> dict:
        """Tick count and the p50/p95/p99/max gap in ms."""
        gaps = sorted(self.gaps_ms)
        if not gaps:
            return {"ticks": 0, "p50_ms": 0.0, "p95_ms": 0.0, "p99_ms": 0.0, "max_ms": 0.0}

        def pct(p: float) -> float:
            return round(gaps[min(len(gaps) - 1, int(p * len(gaps)))], 2)
        return {"ticks": len(gaps), "interval_ms": self.interval_ms, "p50_ms": round(statistics.median(gaps), 2),
                "p95_ms": pct(0.95), "p99_ms": pct(0.99), "max_ms": round(gaps[-1], 2),
                "over_100ms": sum(g > 100 for g in gaps), "over_200ms": sum(g > 200 for g in gaps),
                "max_stall_ms": round(max(self.stalls_ms), 2),
                "stalls_over_200ms": sum(s > 200 for s in self.stalls_ms)}
