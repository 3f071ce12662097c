"""ProgressPrinter: the progress display any long command subscribes to the Library (bar, plain lines or JSON)."""

from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

from desktop_app.core.events import IndexProgress, Notice

BAR_WIDTH = 24


def event_to_dict(event: IndexProgress | Notice) -> dict[str, Any]:
    """An event as a JSON-ready dict with a "kind" field ("progress" or "notice")."""
    kind = "progress" if isinstance(event, IndexProgress) else "notice"
    data = {"kind": kind, **asdict(event)}
    if isinstance(event, IndexProgress):
        data["fraction"] = round(event.fraction, 4)
    return data


class ProgressPrinter:
    """A Library subscriber that shows progress: a one-line bar on a terminal, plain lines otherwise, or JSON.

    On a terminal the bar appears only once a phase has run for `bar_after` seconds (short runs stay quiet)
    and is redrawn at most 10 times a second. Without a terminal, a line is printed per finished batch
    (`plain=True`) at most every `line_every` seconds. Notices are always printed, on their own line.
    Thread-safe: events arrive from the indexer and the embedder threads.

    Use: `unsubscribe = library.subscribe(ProgressPrinter())`, and `printer.close()` at the end.
    """

    def __init__(self, stream: TextIO | None = None, *, json_events: bool = False, tty: bool | None = None,
                 plain: bool = True, bar_after: float = 1.0, line_every: float = 2.0) -> None:
        self.stream = stream or sys.stdout
        self.json_events = json_events
        self.tty = self.stream.isatty() if tty is None else tty
        self.plain = plain
        self.bar_after = bar_after
        self.line_every = line_every
        self._lock = threading.Lock()
        self._bar_shown = False
        self._latest: dict[str, IndexProgress] = {}  # the newest event of each running phase
        self._started: dict[str, float] = {}
        self._last_draw = 0.0

    def __call__(self, event: IndexProgress | Notice) -> None:
        with self._lock:
            if self.json_events:
                self._write(json.dumps(event_to_dict(event), ensure_ascii=False) + "\n")
            elif isinstance(event, Notice):
                self._clear_bar()
                self._write(f"{event.level}: {event.message}\n")
            else:
                self._progress(event)

    def close(self) -> None:
        """End the bar line (if one is shown)."""
        with self._lock:
            self._clear_bar()

    def _progress(self, event: IndexProgress) -> None:
        now = time.monotonic()
        if event.phase == "idle":  # the keyword phase ended; OCR and vectors may go on in the background
            for phase in FOREGROUND:
                self._latest.pop(phase, None)
                self._started.pop(phase, None)
            self._clear_bar()
            if not self.tty and self.plain and event.files_queued:
                self._write(format_line(event) + "\n")
            return
        self._latest[event.phase] = event
        self._started.setdefault(event.phase, now)
        if self.tty:
            long_enough = any(now - t >= self.bar_after for t in self._started.values())
            if long_enough and (now - self._last_draw >= 0.1 or event.fraction >= 1):
                self._write("\r" + format_status(self._latest)[:160].ljust(100))
                self._bar_shown, self._last_draw = True, now
        elif self.plain and _worth_a_line(event) and (now - self._last_draw >= self.line_every or event.fraction >= 1):
            self._write(format_line(event) + "\n")
            self._last_draw = now

    def _clear_bar(self) -> None:
        if self._bar_shown:
            self._write("\r" + " " * 100 + "\r")
            self._bar_shown = False

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed pipe must not break indexing
            pass


def _worth_a_line(event: IndexProgress) -> bool:
    return event.chunks_total > 0 if event.phase in ("semantic", "rebuild") else event.files_queued > 0


FOREGROUND = ("scan", "rebuild", "keyword")  # the phases a sync runs itself; the others run in the background
PHASE_ORDER = ("scan", "rebuild", "keyword", "ocr", "semantic")


def format_status(latest: dict[str, IndexProgress]) -> str:
    """One line for every running phase: a bar for the first that is not finished, counts for the others."""
    later = any(p in latest for p in PHASE_ORDER[1:])  # the scan is over once any later phase has reported
    events = [latest[p] for p in PHASE_ORDER if p in latest and not (p == "scan" and later)]
    if not events:
        return ""
    running = [e for e in events if e.fraction < 1] or events[-1:]
    first, rest = running[0], running[1:]
    return "  |  ".join([format_bar(first), *(f"{e.fraction:4.0%} {format_counts(e)}" for e in rest)])


def format_bar(event: IndexProgress) -> str:
    """`[#######.......]  42% keyword 120/500 files  45/s  eta 8s  notes.md`"""
    filled = int(round(event.fraction * BAR_WIDTH))
    bar = "#" * filled + "." * (BAR_WIDTH - filled)
    return f"[{bar}] {event.fraction:4.0%} {format_counts(event)}"


def format_line(event: IndexProgress) -> str:
    """One plain line for logs and pipes."""
    return f"{event.phase}: {format_counts(event)}"


def format_counts(event: IndexProgress) -> str:
    if event.phase in ("semantic", "rebuild"):
        text = f"{event.phase} {event.chunks_embedded}/{event.chunks_total} chunks"
        unit = "chunks/s"
    elif event.phase == "idle":
        text = f"up to date: {event.files_done} files indexed"
        if event.files_failed:
            text += f", {event.files_failed} failed"
        return text
    elif event.phase == "ocr":
        text = f"ocr {event.files_done}/{event.files_queued} pages"
        unit = "pages/s"
    else:
        text = f"{event.phase} {event.files_done + event.files_failed}/{event.files_queued} files"
        unit = "files/s"
        if event.files_failed:
            text += f" ({event.files_failed} failed)"
    if event.rate:
        text += f"  {event.rate:.0f} {unit}"
    if event.eta_seconds:
        text += f"  eta {event.eta_seconds:.0f}s"
    if event.current_file:
        text += f"  {Path(event.current_file).name}"
    return text
