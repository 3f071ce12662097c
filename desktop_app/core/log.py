"""One named logger per area of Trove, made in one place: `get_logger("index")` is `trove.index`.

What Trove logs may be kept (a log file, a crash report the person copies), so what leaves a logger through
`SafeFormatter` has its credentials redacted (a server URL's password, `password=` in a connection string, by
the server engine's own `redact`). Loggers name files and reasons, never a document's text: that rule is the
callers', and tests/unit/core/test_log.py indexes and searches a library and checks the log for its words.

`RecentLines` keeps the last lines in memory (qutebrowser's RAM handler): the details a crash Notice offers to
copy come from it, so they exist even when no log file could be written.
"""

from __future__ import annotations

import collections
import logging
import re
import threading

AREAS = frozenset({"ingest", "watch", "index", "embed", "search", "chat", "db", "ocr", "server", "ui"})
LINE_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
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
