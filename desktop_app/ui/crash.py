"""Uncaught exceptions become a Notice whose details can be copied (qutebrowser's crash handling, in small).

`install_crash_notices(post)` replaces sys.excepthook and threading.excepthook. An exception that reaches
either (a bug in a slot, a thread that died) is logged with its traceback (so the log file keeps it) and handed
to `post` on the UI thread as an error Notice whose `details` hold the traceback and the last log lines,
credentials redacted; the window goes on. A background task that fails with anything but a KnownError goes the
same way (`report`). The returned function puts the previous hooks back.
"""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Callable
from types import TracebackType

from PySide6.QtCore import QObject, Qt, Signal

from desktop_app import __version__
from desktop_app.core.events import Notice, NoticeLevel
from desktop_app.core.log import get_logger, recent_lines, redact_text

log = get_logger("ui")

_reporter: _Reporter | None = None


class _Reporter(QObject):
    """Lives on the UI thread; a crash on any thread is emitted here and delivered there.

    Signals:
        crashed(object): the Notice for an uncaught exception.
    """

    crashed = Signal(object)


def crash_notice(exc: BaseException) -> Notice:
    """The Notice for a bug: one line to read, the traceback and recent log lines to copy."""
    summary = " ".join(str(exc).split())[:200]
    trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    recent = "\n".join(recent_lines().lines()[-100:])
    details = redact_text(f"Trove {__version__}, Python {sys.version.split()[0]} on {sys.platform}\n\n{trace}\n"
                          f"Recent log lines:\n{recent}\n")
    message = (f"Trove hit an unexpected error ({type(exc).__name__}{': ' + summary if summary else ''}). "
               "It went on; the notice's “Copy details” gives a report to send.")
    return Notice(NoticeLevel.ERROR, redact_text(message), details=details)


def report(exc: BaseException) -> bool:
    """Show `exc` as a crash Notice (from any thread). False when no window installed the hooks."""
    reporter = _reporter
    if reporter is None:
        return False
    reporter.crashed.emit(crash_notice(exc))
    return True


def install_crash_notices(post: Callable[[Notice], None]) -> Callable[[], None]:
    """Route uncaught exceptions to `post` (on the UI thread) as crash Notices; returns the undo."""
    global _reporter
    recent_lines()
    reporter = _Reporter()
    reporter.crashed.connect(post, Qt.ConnectionType.QueuedConnection)
    previous_sys, previous_thread = sys.excepthook, threading.excepthook

    def on_uncaught(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            previous_sys(kind, exc, tb)
            return
        log.error("uncaught exception", exc_info=(kind, exc, tb))
        report(exc.with_traceback(tb))

    def on_thread_uncaught(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is None or issubclass(args.exc_type, SystemExit):
            return
        name = args.thread.name if args.thread is not None else "a thread"
        log.error("uncaught exception in %s", name, exc_info=(args.exc_type, args.exc_value, args.exc_traceback))
        report(args.exc_value)

    sys.excepthook, threading.excepthook = on_uncaught, on_thread_uncaught
    _reporter = reporter

    def uninstall() -> None:
        global _reporter
        sys.excepthook, threading.excepthook = previous_sys, previous_thread
        _reporter = None
        reporter.deleteLater()

    return uninstall
