"""Where `trove mcp` logs: a file in the library folder. On stdio, standard output is the protocol, and a client
may show standard error as an alarming red pane, so nothing is written to either once the server runs."""

from __future__ import annotations

import logging
import os
from logging.handlers import RotatingFileHandler
from pathlib import Path

from desktop_app.core.log import SafeFormatter

LOG_DIR = "logs"
LOG_NAME = "mcp.log"
MAX_BYTES = 1_000_000
BACKUPS = 2


def log_path(home: str | os.PathLike[str]) -> Path:
    """The MCP server's log file for the library in `home`."""
    return Path(home) / LOG_DIR / LOG_NAME


def log_to_file(home: str | os.PathLike[str], *, verbose: bool = False) -> Path:
    """Send every logger's records (Trove's, the SDK's, uvicorn's) to the log file only; returns its path."""
    path = log_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = RotatingFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8",
                                  errors="backslashreplace")
    handler.setFormatter(SafeFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):  # the CLI's stderr handler, the SDK's rich console handler
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.INFO if verbose else logging.WARNING)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "mcp"):
        logging.getLogger(name).handlers.clear()
        logging.getLogger(name).propagate = True
    return path
