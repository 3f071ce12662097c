"""Text that is never HTML: a QTextDocument that loads no resource, tooltips and labels shown as plain text.

QTextDocument fetches `file:` URLs on its own when HTML or Markdown names an image. Trove only ever
renders escaped document text, so nothing should be asked for; if something is, it gets a blank image
(returning nothing is not enough: Qt's image handler then opens the file itself) and is recorded, which
the tests check.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QByteArray, Qt, QUrl
from PySide6.QtGui import QImage, QTextDocument
from PySide6.QtWidgets import QLabel

from desktop_app.core.log import get_logger
from desktop_app.core.pathnames import clean_text, display_path

log = get_logger("ui")


class SafeTextDocument(QTextDocument):
    """Refuses every resource; `requested` lists the URLs that were refused."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.requested: list[str] = []

    def loadResource(self, kind: int, url: QUrl):  # noqa: N802 - Qt override
        self.requested.append(url.toString())
        log.info("refused to load %s into a text document", url.toString())
        if kind == QTextDocument.ResourceType.ImageResource:
            # A blank image, not None: given nothing, Qt's image handler falls back to reading the file itself.
            blank = QImage(1, 1, QImage.Format.Format_ARGB32)
            blank.fill(0)
            return blank
        return QByteArray()


def image_fragments(doc: QTextDocument) -> int:
    """How many image objects the document holds (0 for text that was properly escaped)."""
    count = 0
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            count += it.fragment().charFormat().isImageFormat()
            it += 1
        block = block.next()
    return count


def plain_tooltip(text: str, *, path: bool = False) -> str:
    """Rich text that shows `text` exactly as written (Qt renders any tooltip that looks like HTML as HTML).

    A file named `<img src=pic.png>.txt` would otherwise become an image that Qt loads from disk. `path=True`
    also shows undecodable bytes, control characters and direction overrides as escapes (display_path).
    """
    if not text:
        return ""
    shown = display_path(text) if path else clean_text(text)
    return '<p style="white-space:pre-wrap">' + html.escape(shown, quote=False) + "</p>"


def make_plain(*labels: QLabel) -> None:
    """Show these labels' text as plain text, never as HTML (their text carries file names or messages)."""
    for label in labels:
        label.setTextFormat(Qt.TextFormat.PlainText)
