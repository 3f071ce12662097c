"""The window's log file: Trove's warnings and errors (and, with `trove -v gui`, what it does) in the library
folder, so a problem can be looked at after the window closed. About shows where it is."""

from __future__ import annotations

import logging
import os
from logging.handlers import RotatingFileHandler
from pathlib import Path

from desktop_app.core.log import SafeFormatter, get_logger

log = get_logger("ui")

LOG_DIR = "logs"
LOG_NAME = "trove.log"
MAX_BYTES = 1_000_000  # then trove.log.1, .2: a few MB at most
BACKUPS = 2


class _TroveFileHandler(RotatingFileHandler):
    """Marks the handler this module added, so a second window (or a test) replaces it instead of adding one."""


def log_path(home: str | os.PathLike[str]) -> Path:
    """Where the window writes its log for the library in `home`."""
    return Path(home) / LOG_DIR / LOG_NAME


def start_log_file(home: str | os.PathLike[str]) -> Path | None:
    """Send the `trove.*` loggers' records to the library's log file as well; None when it cannot be written."""
    path = log_path(home)
    trove = logging.getLogger("trove")
    for handler in [h for h in trove.handlers if isinstance(h, _TroveFileHandler)]:
        trove.removeHandler(handler)
        handler.close()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = _TroveFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8",
                                    errors="backslashreplace")
    except OSError as exc:
        log.warning("no log file at %s: %s", path, exc)
        return None
    handler.setFormatter(SafeFormatter())  # a server URL's password never reaches the file
    trove.addHandler(handler)
    return path
