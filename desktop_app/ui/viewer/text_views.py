"""The viewer's text views: plain text and code in a QPlainTextEdit that can number its lines, and Markdown rendered
(safely: no resource is ever loaded, no HTML) with the passage's and the quote's offsets carried through rendering.

A passage's span indexes the Markdown source; the rendered document has no `#` or `**`, so its characters sit
elsewhere. Private-use marks are put into the source at each offset (moved off a line's block markup, which they
would break), rendered, found and taken out again: where they land is where the span starts and ends in what the
person reads. A mark that markup swallowed (inside a link's address) returns None, and the pane shows the source
as text instead: the highlight is never on the wrong characters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QColor, QFontDatabase, QPainter, QPaintEvent, QResizeEvent, QTextCursor, QTextDocument
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from desktop_app.ui.chat.markdown import neutralise_images

MARKS = "\ue000\ue001\ue002\ue003"  # passage start, passage end, quote start, quote end
_BLOCK_PREFIX = re.compile(r"[ \t]{0,3}(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+|\d{1,9}[.)][ \t]+|\[[ xX]\][ \t]+)*")
_WHOLE_LINE = re.compile(r"[ \t]*(?:```|~~~|(?:[-=*_][ \t]*){3,}$|\|?[ \t]*:?-{3,})")  # fences, rules, underlines
FEATURES = QTextDocument.MarkdownFeature.MarkdownDialectGitHub | QTextDocument.MarkdownFeature.MarkdownNoHTML


class NumberedText(QPlainTextEdit):
    """A read-only text view; with `numbered` on, the lines' numbers (from 1) in a gutter on the left."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.numbered = False
        self.gutter = _Gutter(self)
        self.blockCountChanged.connect(self.on_block_count_changed)
        self.updateRequest.connect(self.on_update_request)
        self.set_numbered(False)

    def set_numbered(self, on: bool) -> None:
        """Number the lines (code: a monospace font too) or not."""
        self.numbered = on
        self.gutter.setVisible(on)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont if on else
                                        QFontDatabase.SystemFont.GeneralFont)
        self.setFont(font)
        self.on_block_count_changed(self.blockCount())

    def gutter_width(self) -> int:
        return 12 + self.fontMetrics().horizontalAdvance("9") * max(3, len(str(self.blockCount())))

    def on_block_count_changed(self, _count: int) -> None:
        self.setViewportMargins(self.gutter_width() if self.numbered else 0, 0, 0, 0)

    def on_update_request(self, rect: QRect, dy: int) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        area = self.contentsRect()
        self.gutter.setGeometry(QRect(area.left(), area.top(), self.gutter_width(), area.height()))

    def line_numbers_shown(self) -> list[tuple[int, int]]:
        """(number, top in pixels) of each numbered line in view (what the gutter paints; tests read it)."""
        out = []
        block = self.firstVisibleBlock()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        while block.isValid() and top <= self.viewport().height():
            if block.isVisible():
                out.append((block.blockNumber() + 1, top))
            top += round(self.blockBoundingRect(block).height())
            block = block.next()
        return out


class _Gutter(QWidget):
    """The line numbers beside a NumberedText."""

    def __init__(self, view: NumberedText) -> None:
        super().__init__(view)
        self.view = view

    def sizeHint(self) -> QSize:
        return QSize(self.view.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        palette = self.view.palette()
        painter.fillRect(event.rect(), palette.color(palette.ColorRole.AlternateBase))
        color = QColor(palette.color(palette.ColorRole.Text))
        color.setAlphaF(0.55)  # quieter than the code, readable light and dark
        painter.setPen(color)
        painter.setFont(self.view.font())
        height = self.view.fontMetrics().height()
        for number, top in self.view.line_numbers_shown():
            painter.drawText(0, top, self.width() - 6, height, Qt.AlignmentFlag.AlignRight, str(number))
        painter.end()


def _safe_offset(text: str, at: int) -> int:
    """Where a mark for offset `at` can go without breaking the line's Markdown: past a heading's `#`, a quote's
    `>` or a list bullet; before a fence, a rule or a heading underline (at the end of the line above)."""
    line_start = text.rfind("\n", 0, at) + 1
    line_end = text.find("\n", line_start)
    line = text[line_start:line_end if line_end != -1 else len(text)]
    if _WHOLE_LINE.match(line):
        return max(line_start - 1, 0)
    prefix = _BLOCK_PREFIX.match(line)
    return max(at, line_start + (prefix.end() if prefix else 0))


def render_markdown(document: QTextDocument, source: str, offsets: Sequence[int]) -> list[int] | None:
    """Render `source` as Markdown into `document`; where each of `offsets` (at most four, into `source`) is in the
    rendered document, or None when one was lost (the document then holds a rendering that is not to be shown)."""
    clean = "".join(ch for ch in source if ch not in MARKS)
    if len(clean) != len(source):
        return None  # the source holds our marks itself: nothing can be told apart
    placed = sorted((min(max(_safe_offset(source, max(o, 0)), 0), len(source)), i) for i, o in enumerate(offsets))
    parts, last = [], 0
    for at, i in placed:
        parts += [source[last:at], MARKS[i]]
        last = at
    parts.append(source[last:])
    document.setMarkdown(neutralise_images("".join(parts)), FEATURES)
    raw = document.toRawText()
    found = {ch: raw.find(ch) for ch in MARKS[:len(offsets)]}
    if any(pos == -1 for pos in found.values()):
        return None
    for pos in sorted(found.values(), reverse=True):  # last first: earlier positions stay put
        cursor = QTextCursor(document)
        cursor.setPosition(pos)
        cursor.deleteChar()
    ordered = sorted(found.values())
    return [found[MARKS[i]] - ordered.index(found[MARKS[i]]) for i in range(len(offsets))]  # less marks before
