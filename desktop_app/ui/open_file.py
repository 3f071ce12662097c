"""The seam through which Trove opens files: the system handler by default, a recorder in tests.

Everything that opens a file or folder calls `open_path()`; tests call `set_opener()` to record calls
instead of launching a PDF viewer.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

from desktop_app.core.log import get_logger

log = get_logger("ui")

Opener = Callable[[str, "int | None"], bool]


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


def open_path(path: str, page: int | None = None) -> bool:
    """Open a file (at a page, where the viewer supports it) or a folder."""
    log.info("opening %s%s", path, f" at page {page}" if page else "")
    return _opener(path, page)
