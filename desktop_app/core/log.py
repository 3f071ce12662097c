"""One named logger per area of Trove, made in one place: `get_logger("index")` is `trove.index`.

What Trove logs may be kept (a log file, a crash report the person copies), so what leaves a logger through
`SafeFormatter` has its credentials redacted (a server URL's password, `password=` in a connection string, by
the server engine's own `redact`). Loggers name files and reasons, never a document's text: that rule is the
callers', and tests/unit/core/test_log.py indexes and searches a library and checks the log for its words.

`configure` is the one setup of a process's logging: the CLI's `main` calls it, and so every start of Trove does
(`trove gui` and the packaged apps start through the CLI; the window adds its log file, ui/log_file.py, with the
same formatter). So `trove -v` prints what the window's log file would hold, redacted the same way.

`RecentLines` keeps the last lines in memory (qutebrowser's RAM handler): the details a crash Notice offers to
copy come from it, so they exist even when no log file could be written.
"""

from __future__ import annotations

import collections
import logging
import re
import sys
import threading
from typing import TextIO

AREAS = frozenset({"ingest", "watch", "index", "embed", "search", "chat", "db", "ocr", "server", "ui"})
LINE_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
CONSOLE_FORMAT = "%(levelname)s %(name)s: %(message)s"  # a terminal has its own clock
RECENT_LINES = 300
_URL = re.compile(r"""[A-Za-z][A-Za-z0-9+.-]*://[^\s'"<>]+""")
_SECRET_HINT = re.compile(r"(?i)://|password")


def get_logger(area: str) -> logging.Logger:
    """The logger for one area of Trove (an unknown area is a bug: every logger is listed in AREAS)."""
    if area not in AREAS:
        raise ValueError(f"unknown log area {area!r}; add it to desktop_app.core.log.AREAS")
    return logging.getLogger(f"trove.{area}")


def redact_text(text: str) -> str:
    """`text` with every URL's password and every `password=` value replaced by ***."""
    if not _SECRET_HINT.search(text):
        return text  # the usual line: nothing that could hold a credential
    from desktop_app.core.redact import redact

    return redact(_URL.sub(lambda m: redact(m.group(0)), text))


class SafeFormatter(logging.Formatter):
    """A log line (and its traceback) with credentials redacted."""

    def __init__(self, fmt: str = LINE_FORMAT) -> None:
        super().__init__(fmt)

    def format(self, record: logging.LogRecord) -> str:
        return redact_text(super().format(record))


class _ConsoleHandler(logging.StreamHandler):
    """Marks the handler `configure` added, so configuring again replaces it instead of adding a second one."""


def configure(*, verbose: bool = False, stream: TextIO | None = None) -> None:
    """Every logger's records at INFO (`verbose`, `trove -v`) or WARNING to `stream` (stderr), credentials redacted.

    Like logging.basicConfig it leaves a process alone whose root logger already has another handler (a host
    that routes logs itself, or pytest's capture); configuring twice replaces the first console handler.
    """
    root = logging.getLogger()
    ours = [h for h in root.handlers if isinstance(h, _ConsoleHandler)]
    if len(ours) != len(root.handlers):
        return
    for handler in ours:
        root.removeHandler(handler)
    handler = _ConsoleHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(SafeFormatter(CONSOLE_FORMAT))
    root.addHandler(handler)
    root.setLevel(logging.INFO if verbose else logging.WARNING)


class RecentLines(logging.Handler):
    """The last `size` formatted lines of the `trove.*` loggers, in memory, for a crash report."""

    def __init__(self, size: int = RECENT_LINES) -> None:
        super().__init__(logging.INFO)
        self.setFormatter(SafeFormatter())
        self._lines: collections.deque[str] = collections.deque(maxlen=size)
        self._guard = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record)
        except Exception:  # noqa: BLE001 -- logging never raises into the caller
            self.handleError(record)
            return
        with self._guard:
            self._lines.append(line)

    def lines(self) -> list[str]:
        with self._guard:
            return list(self._lines)


def recent_lines() -> RecentLines:
    """The one RecentLines on the `trove` logger (added at the first call)."""
    trove = logging.getLogger("trove")
    for handler in trove.handlers:
        if isinstance(handler, RecentLines):
            return handler
    handler = RecentLines()
    trove.addHandler(handler)
    return handler
