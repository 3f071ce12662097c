"""The seam through which Trove opens files: the system handler by default, a recorder in tests.

Everything that opens a file or folder calls `open_path()`; tests call `set_opener()` to record calls
instead of launching a PDF viewer. In a team library a result may be a file on another desktop's disk:
opening one that is not on this computer says so (through `set_notifier()`'s seam) instead of failing silently.

A path is data written by whichever desktop indexed it: only one under this machine's own library folders (links
resolved; `set_folder_roots()` says which they are), not a network path and not a program, reaches the desktop's
handler. Anything else is refused with a message that offers to show its folder when that folder is one of ours
(core.open_check decides).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop_app.core.library_tools import folder_to_show, is_unc, refusal
from desktop_app.core.log import get_logger

log = get_logger("ui")

Opener = Callable[[str, "int | None"], bool]
Notifier = Callable[[str], None]
Refuser = Callable[[str, "str | None"], None]  # (message, a folder of ours that may be shown instead, or None)
Roots = Callable[[], "list[str]"]


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


def refusal_box(text: str, folder: str | None) -> None:
    """Tell the person why a file was not opened, offering to show its folder (the default refuser)."""
    box = QMessageBox(QMessageBox.Icon.Warning, "Trove did not open this file", text,
                      QMessageBox.StandardButton.Close, QApplication.activeWindow())
    show = box.addButton("Show the folder", QMessageBox.ButtonRole.ActionRole) if folder else None
    box.exec()
    if show is not None and box.clickedButton() is show and folder:
        _opener(folder, None)


_refuser: Refuser = refusal_box
_roots: Roots | None = None


def set_refuser(refuser: Refuser | None) -> Refuser:
    """Replace how a refused open is told (None restores the dialog). Returns the previous one."""
    global _refuser
    previous = _refuser
    _refuser = refuser or refusal_box
    return previous


def set_folder_roots(roots: Roots | None) -> Roots | None:
    """Say where this machine's library folders are (the folders panel does). Returns the previous provider."""
    global _roots
    previous = _roots
    _roots = roots
    return previous


def open_path(path: str, page: int | None = None, machine: str = "") -> bool:
    """Open a file (at a page, where the viewer supports it) or a folder. `machine` names the computer whose
    disk holds a search result's file when it is not this one: if the file is not here too, say so. A path
    outside this machine's folders, a network path or a program is refused with a message.

    A network path is refused before anything touches it: on Windows even a stat of \\\\host\\share\\x makes
    the system sign in to `host`, handing it the person's NTLM hash."""
    if is_unc(path):
        reason = refusal(path, [])
        log.warning("refused to open %s: %s", path, reason)
        _refuser(reason or f"Trove does not open {path}: it is a network path.", None)
        return False
    if machine and not os.path.exists(path):
        log.info("%s is only on machine %s", path, machine)
        _notifier(elsewhere_message(path, machine))
        return False
    roots = _roots() if _roots is not None else None
    reason = refusal(path, roots) if roots is not None else None
    if reason is not None:
        log.warning("refused to open %s: %s", path, reason)
        _refuser(reason, folder_to_show(path, roots or []))
        return False
    log.info("opening %s%s", path, f" at page {page}" if page else "")
    return _opener(path, page)
