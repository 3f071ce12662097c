"""Paints one search result: type badge, file name, where it is, and a highlighted snippet.

The snippet is escaped HTML from snippets.snippet_html (only <b> tags are ours), laid out by a
QTextDocument whose text colours come from the view's palette, so dark mode just works.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QColor, QFont, QIcon, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
)

from desktop_app.ui.safe_document import SafeTextDocument
from desktop_app.ui.search.results_model import LocationRole, SnippetHtmlRole
from desktop_app.ui.theme import secondary_text

PAD, ICON, SNIPPET_LINES = 6, 32, 3


class ResultDelegate(QStyledItemDelegate):
    """Draws result rows of a fixed height (name, location, three snippet lines)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.refused: list[str] = []  # resources a snippet asked for (always empty: snippets are escaped)

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        line = option.fontMetrics.lineSpacing()
        return QSize(200, PAD * 3 + line * (2 + SNIPPET_LINES))

    def paint(self, painter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        style = opt.widget.style() if opt.widget else QApplication.style()
        # background and selection from the style; text we draw ourselves
        icon = QIcon(opt.icon)  # a copy: clearing opt.icon below must not clear ours
        opt.text, opt.icon = "", QIcon()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)

        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        group = (
            QPalette.ColorGroup.Normal if opt.state & QStyle.StateFlag.State_Active else QPalette.ColorGroup.Inactive
        )
        text_colour, where_colour = row_colours(opt.palette, group, selected)
        rect = opt.rect.adjusted(PAD, PAD, -PAD, -PAD)
        line = opt.fontMetrics.lineSpacing()

        painter.save()
        icon.paint(painter, rect.left(), rect.top(), ICON, ICON)
        left = rect.left() + ICON + PAD
        width = rect.right() - left
        bold = QFont(opt.font)  # a copy: opt.font is shared with the snippet below
        bold.setBold(True)
        painter.setFont(bold)
        painter.setPen(text_colour)
        name = painter.fontMetrics().elidedText(index.data() or "", Qt.TextElideMode.ElideMiddle, width)
        painter.drawText(
            left, rect.top(), width, line, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, name
        )
        painter.setFont(opt.font)
        painter.setPen(where_colour)
        where = opt.fontMetrics.elidedText(index.data(LocationRole) or "", Qt.TextElideMode.ElideRight, width)
        painter.drawText(
            left, rect.top() + line, width, line, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, where
        )

        doc = SafeTextDocument()
        doc.setDefaultFont(opt.font)
        doc.setDocumentMargin(0)
        doc.setTextWidth(width)
        doc.setHtml(index.data(SnippetHtmlRole) or "")
        painter.translate(left, rect.top() + 2 * line + PAD // 2)
        clip = QRectF(0, 0, width, line * SNIPPET_LINES)
        painter.setClipRect(clip)
        ctx = QAbstractTextDocumentLayout.PaintContext()
        ctx.palette.setColor(QPalette.ColorRole.Text, text_colour)
        ctx.clip = clip
        doc.documentLayout().draw(painter, ctx)
        painter.restore()
        self.refused.extend(doc.requested)


def row_colours(palette: QPalette, group: QPalette.ColorGroup, selected: bool) -> tuple[QColor, QColor]:
    """The text colour of a result row (name and snippet) and of its second line (folder, page, type): the
    selection's text on a selected row, else Text and a muted colour that stays readable on Base."""
    if selected:
        colour = palette.color(group, QPalette.ColorRole.HighlightedText)
        return colour, colour
    return palette.color(group, QPalette.ColorRole.Text), secondary_text(palette, group)
