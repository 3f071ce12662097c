"""What every command shares: exit codes, opening the library, adding paths."""

from __future__ import annotations

import argparse
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop_app.core.errors import FolderNotFoundError

# 0 success, 1 a known problem (one line on stderr), 2 a usage error; 130 interrupted (as shells report SIGINT).
EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
MAX_K = 10_000  # results a search may ask for


def result_count(text: str) -> int:
    """`-k`: a whole number of results from 1 to MAX_K (argparse turns the error into a usage line)."""
    k = int(text)
    if not 1 <= k <= MAX_K:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_K}, not {k}")
    return k


def open_library(args: argparse.Namespace) -> Any:
    """The Library for this command (imported here so `trove --help` stays fast)."""
    from desktop_app.core.library import Library

    return Library(home=args.home, db=getattr(args, "db", None))


def add_paths(library: Any, paths: Sequence[str]) -> None:
    """Add folders (a file stands for the folder it is in); one inside a library folder is indexed with it already."""
    for raw in paths:
        path = Path(raw).expanduser().resolve()
        folder = path.parent if path.is_file() else path
        if not folder.is_dir():
            raise FolderNotFoundError(f"Not a folder: {path}")
        if library.folder_for_path(folder) is None:
            library.add_folder(folder)


def in_worker(call, name: str = "trove-ask"):
    """Run call(cancel) on a worker so Ctrl-C can cancel it cleanly (what was done so far is kept)."""
    cancel = threading.Event()
    box: dict = {}

    def work() -> None:
        try:
            box["result"] = call(cancel)
        except BaseException as exc:  # noqa: BLE001 -- handed to the main thread, which raises it there
            box["error"] = exc

    worker = threading.Thread(target=work, name=name, daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        cancel.set()
        worker.join()
    if "error" in box:
        raise box["error"]
    return box["result"]
