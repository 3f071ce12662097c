"""`trove watch [PATH...]`: keep the library in sync with its folders until Ctrl+C / SIGTERM."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading

from desktop_app.cli.common import EXIT_ERROR, EXIT_OK, EXIT_USAGE, add_paths
from desktop_app.cli.progress import ProgressPrinter


def add_watch_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register `trove watch`."""
    p = subparsers.add_parser("watch", help="keep the library in sync with its folders until interrupted")
    p.add_argument("paths", nargs="*", metavar="PATH", help="folders (or files) to add first")
    p.add_argument("--json-events", action="store_true", help="print one JSON object per progress event or notice")
    p.set_defaults(func=cmd_watch)


def cmd_watch(args, library) -> int:
    """Add PATHs, reconcile, then apply changes live until SIGINT/SIGTERM."""
    add_paths(library, args.paths)
    if not library.folders():
        print("no folders yet: trove watch PATH", file=sys.stderr)
        return EXIT_USAGE
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
                return EXIT_ERROR
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
