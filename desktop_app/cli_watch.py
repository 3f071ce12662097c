"""`trove watch [PATH...]`: keep the library in sync with its folders until Ctrl+C / SIGTERM.

Also home of ProgressPrinter, the progress display any long command can subscribe to the Library.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import TextIO

from desktop_app.core.events import IndexProgress, Notice

EXIT_OK = 0
BAR_WIDTH = 24


def event_to_dict(event: IndexProgress | Notice) -> dict:
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
        self._phase = ""
        self._phase_started = time.monotonic()
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
        if event.phase != self._phase:
            self._phase, self._phase_started = event.phase, now
        if event.phase == "idle":
            self._clear_bar()
            if not self.tty and self.plain and event.files_queued:
                self._write(format_line(event) + "\n")
            return
        if self.tty:
            if now - self._phase_started >= self.bar_after and (now - self._last_draw >= 0.1 or event.fraction >= 1):
                self._write("\r" + format_bar(event)[:160].ljust(100))
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
    return event.chunks_total > 0 if event.phase == "semantic" else event.files_queued > 0


def format_bar(event: IndexProgress) -> str:
    """`[#######.......]  42% keyword 120/500 files  45/s  eta 8s  notes.md`"""
    filled = int(round(event.fraction * BAR_WIDTH))
    bar = "#" * filled + "." * (BAR_WIDTH - filled)
    return f"[{bar}] {event.fraction:4.0%} {format_counts(event)}"


def format_line(event: IndexProgress) -> str:
    """One plain line for logs and pipes."""
    return f"{event.phase}: {format_counts(event)}"


def format_counts(event: IndexProgress) -> str:
    if event.phase == "semantic":
        text = f"semantic {event.chunks_embedded}/{event.chunks_total} chunks"
        unit = "chunks/s"
    elif event.phase == "idle":
        text = f"up to date: {event.files_done} files indexed"
        if event.files_failed:
            text += f", {event.files_failed} failed"
        return text
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


# ---- the command ------------------------------------------------------------------------------


def add_watch_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register `trove watch`."""
    p = subparsers.add_parser("watch", help="keep the library in sync with its folders until interrupted")
    p.add_argument("paths", nargs="*", metavar="PATH", help="folders (or files) to add first")
    p.add_argument("--json-events", action="store_true", help="print one JSON object per progress event or notice")
    p.set_defaults(func=cmd_watch)


def cmd_watch(args, library) -> int:
    """Add PATHs, reconcile, then apply changes live until SIGINT/SIGTERM."""
    from desktop_app.core.errors import FolderNotFoundError

    for raw in args.paths:
        path = Path(raw).expanduser().resolve()
        if path.is_file():
            path = path.parent
        if not path.is_dir():
            raise FolderNotFoundError(f"Not a folder: {path}")
        if library.folder_for_path(path) is None:  # inside a library folder already: it is watched with it
            library.add_folder(path)
    if not library.folders():
        print("no folders yet: trove watch PATH", file=sys.stderr)
        return 2
    printer = ProgressPrinter(json_events=args.json_events)
    unsubscribe = library.subscribe(printer)
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        library.start_watching()
        _say(args, f"watching {len(library.folders())} folder(s); press Ctrl+C to stop")
        while not stop.wait(0.5):
            if not library.watcher.running:  # never keep saying "watching" once the sync thread is gone
                print("trove: live sync stopped unexpectedly; see the log (-v) and run trove watch again",
                      file=sys.stderr)
                return 1
        library.stop_watching()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        printer.close()
        unsubscribe()
    _say(args, "stopped")
    return EXIT_OK


def _say(args, text: str) -> None:
    if args.json_events:
        print(json.dumps({"kind": "status", "message": text}), flush=True)
    else:
        print(text, flush=True)
