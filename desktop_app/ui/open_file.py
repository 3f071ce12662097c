"""The seam through which Trove opens files: the system handler by default, a recorder in tests.

Everything that opens a file or folder calls `open_path()`; tests call `set_opener()` to record calls
instead of launching a PDF viewer. In a team library a result may be a file on another desktop's disk:
opening one that is not on this computer says so (through `set_notifier()`'s seam) instead of failing silently.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop_app.core.log import get_logger

log = get_logger("ui")

Opener = Callable[[str, "int | None"], bool]
Notifier = Callable[[str], None]


def file_url(path: str, page: int | None = None) -> QUrl:
    """A file:// URL for `path`; for a PDF with a page, `#page=N` (understood by most PDF viewers)."""
    url = QUrl.fromLocalFile(str(path))
    if page is not None and Path(path).suffix.lower() == ".pdf":
        url.setFragment(f"page={int(page)}")
    return url


def system_opener(path: str, page: int | None = None) -> bool:
    """Open with the desktop's handler for the file type. False if the desktop refused."""
    ok = QDesktopServices.openUrl(file_url(path, page))
    if not ok:
        log.warning("the desktop could not open %s", path)
    return ok


_opener: Opener = system_opener


def set_opener(opener: Opener | None) -> Opener:
    """Replace the opener (None restores the system one). Returns the previous opener."""
    global _opener
    previous = _opener
    _opener = opener or system_opener
    return previous


def elsewhere_message(path: str, machine: str) -> str:
    """What to say when a result's file is on another computer's disk, not this one's."""
    return (f"{Path(path).name} is on another computer ({machine}), not on this one, so Trove cannot open it "
            f"here. Its path there: {path}")


def message_box(text: str) -> None:
    """Tell the person in a small dialog (the default notifier)."""
    QMessageBox.information(QApplication.activeWindow(), "File on another computer", text)


_notifier: Notifier = message_box


def set_notifier(notifier: Notifier | None) -> Notifier:
    """Replace how "this file is elsewhere" is told (None restores the dialog). Returns the previous one."""
    global _notifier
    previous = _notifier
    _notifier = notifier or message_box
    return previous


def open_path(path: str, page: int | None = None, machine: str = "") -> bool:
    """Open a file (at a page, where the viewer supports it) or a folder. `machine` names the computer whose
    disk holds a search result's file when it is not this one: if the file is not here too, say so."""
    if machine and not os.path.exists(path):
        log.info("%s is only on machine %s", path, machine)
        _notifier(elsewhere_message(path, machine))
        return False
    log.info("opening %s%s", path, f" at page {page}" if page else "")
    return _opener(path, page)
