"""The passages behind an answer: which file and page each [n] came from, its text, and a way to open it."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette, QTextCursor, QTextOption
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.library_tools import is_memory
from desktop_app.core.pathnames import display_path
from desktop_app.core.text.language import RIGHT_TO_LEFT, detect_language
from desktop_app.ui import open_file
from desktop_app.ui.safe_document import plain_tooltip
from desktop_app.ui.theme import secondary_text


def text_direction(text: str) -> Qt.LayoutDirection:
    """Right to left for a passage whose language is written that way (core.text's rule, as for the language
    filter); a plain text box otherwise lays an Arabic passage out from the left."""
    rtl = detect_language(text) in RIGHT_TO_LEFT
    return Qt.LayoutDirection.RightToLeft if rtl else Qt.LayoutDirection.LeftToRight


def utf16_offset(text: str, index: int) -> int:
    """Where code point `index` of `text` is in Qt's UTF-16 positions (an emoji counts twice there)."""
    return len(text[:index].encode("utf-16-le")) // 2


def passage_label(p) -> str:
    """ "[2] p. 3 · report.pdf": number and place first, so eliding a long file name keeps them. A fact from memory:
    "[1] Memory · fact editor, 34d ago" (a chat stored before round 4 may also hold a past chat's excerpt this way)."""
    if is_memory(p):
        return f"[{p.n}] Memory · {p.place}"
    name = display_path(os.path.basename(p.source) or p.source)
    return f"[{p.n}] " + (f"{p.where} · " if p.where else "") + name


def context_label(item: dict) -> str:
    """A past chat recalled as context (ChatAnswer.memory's item): no number, it is not evidence and is not cited."""
    return f"Conversation · {item.get('label', '')} (memory, not cited)"


class SourcesPanel(QWidget):
    """Passages sent with one answer; the selected one's text shows below (as plain text) and can be opened. Past
    chats recalled as context for the answer are listed after them, unnumbered.

    The quote of the answer, when there is one, is highlighted in its passage (its verbatim span).

    Signals:
        passage_selected(int): a passage became the current one (its number n).
        opened(str, object): a passage's file was opened (path, page).
    """

    passage_selected = Signal(int)
    opened = Signal(str, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel("Sources")
        self.title.setObjectName("panelTitle")
        self.open_button = QPushButton("Open at page")
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(self.on_open_clicked)
        self.viewer: Callable[[int, str], object] | None = None  # opens (chunk id, quote) in the window's viewer
        self.memory_viewer: Callable[[dict], object] | None = None  # opens a memory item (a fact, an excerpt) there
        self.list = QListWidget()
        self.list.setObjectName("sourcesList")
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.currentItemChanged.connect(self.on_current_item_changed)
        self.list.itemDoubleClicked.connect(self.on_item_double_clicked)
        self.preview = QPlainTextEdit(readOnly=True)  # plain text: a passage full of HTML shows as text
        self.preview.setObjectName("passagePreview")
        self.preview.setPlaceholderText("Click a citation like [1] to see the passage it refers to.")
        header = QHBoxLayout()
        header.addWidget(self.title, 1)
        header.addWidget(self.open_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(header)
        row = QHBoxLayout()
        row.addWidget(self.list, 1)
        row.addWidget(self.preview, 1)
        layout.addLayout(row, 1)
        self._passages: dict[int, Any] = {}  # chat Passages
        self._context: dict[int, str] = {}  # recalled past chats' texts, under keys below 0 (never a passage's n)
        self._context_items: dict[int, dict] = {}  # the same, whole (their chat and turns, for the viewer)
        self.quote = None

    def set_passages(self, passages: Sequence, cited: Sequence[int] = (), quote=None,
                     context: Sequence[dict] = ()) -> None:
        """Show the passages of an answer (chat Passage objects), cited ones first; `quote` is highlighted. `context`:
        the past chats recalled for it (ChatAnswer.memory's items with "context"), listed after, unnumbered."""
        cited_set = set(cited)
        self._passages = {p.n: p for p in passages}
        self._context = {-1 - i: str(item.get("text", "")) for i, item in enumerate(context)}
        self._context_items = {-1 - i: dict(item) for i, item in enumerate(context)}
        self.quote = quote
        self.list.clear()
        self.preview.clear()
        ordered = sorted(passages, key=lambda p: (p.n not in cited_set, p.n))
        for p in ordered:
            item = QListWidgetItem(passage_label(p))
            item.setData(Qt.ItemDataRole.UserRole, p.n)
            where = (f"from memory: {p.place}" if is_memory(p) else
                     display_path(p.source) + (f" (page {p.page})" if p.page is not None else ""))
            item.setToolTip(plain_tooltip(where if p.n in cited_set else f"{where}\nsent to the model, not cited"))
            if (
                p.n not in cited_set
            ):  # passages the answer did not cite are shown muted (from the palette, and readable: not disabled grey)
                item.setForeground(secondary_text(self.list.palette()))
            self.list.addItem(item)
        for i, entry in enumerate(context):
            item = QListWidgetItem(context_label(entry))
            item.setData(Qt.ItemDataRole.UserRole, -1 - i)
            item.setToolTip(plain_tooltip("recalled from a past chat as context: not evidence, not quoted or cited"))
            item.setForeground(secondary_text(self.list.palette()))
            self.list.addItem(item)
        self.title.setText(f"Sources ({len(cited_set)} cited of {len(passages)})" if passages else "Sources")
        self.open_button.setEnabled(False)

    def select(self, n: int) -> bool:
        """Make passage n current (what a citation click does). False if this answer has no passage n."""
        for i in range(self.list.count()):
            if self.list.item(i).data(Qt.ItemDataRole.UserRole) == n:
                self.list.setCurrentRow(i)
                return True
        return False

    def current_passage(self):
        item = self.list.currentItem()
        return self._passages.get(item.data(Qt.ItemDataRole.UserRole)) if item else None

    def open_current(self) -> bool:
        p = self.current_passage()
        if p is None or is_memory(p):  # a fact or a past chat's turns: no file to open
            return False
        open_file.open_path(p.source, p.page)
        self.opened.emit(p.source, p.page)
        return True

    def on_current_item_changed(self, current: QListWidgetItem | None, _previous) -> None:
        key = current.data(Qt.ItemDataRole.UserRole) if current else None
        p = self._passages.get(key) if key is not None else None
        self.open_button.setEnabled(p is not None and not is_memory(p))
        text = p.content if p else self._context.get(key, "") if key is not None else ""
        direction = text_direction(text)
        rtl = direction == Qt.LayoutDirection.RightToLeft
        self.preview.setLayoutDirection(direction)  # the scroll bar's side
        option = QTextOption(self.preview.document().defaultTextOption())
        option.setTextDirection(direction)  # the order of runs within a line
        option.setAlignment(Qt.AlignmentFlag.AlignRight if rtl else Qt.AlignmentFlag.AlignLeft)  # a plain text box
        self.preview.document().setDefaultTextOption(option)
        self.preview.setPlainText(text)
        self.highlight_quote(p)
        if p is not None:
            self.passage_selected.emit(p.n)

    def highlight_quote(self, p) -> None:
        """Mark the quote's span when `p` is the quoted passage (palette colours: readable light and dark)."""
        q = self.quote
        if p is None or q is None or q.n != p.n or p.content[q.start:q.end] != q.text:
            self.preview.setExtraSelections([])
            return
        cursor = QTextCursor(self.preview.document())
        cursor.setPosition(utf16_offset(p.content, q.start))
        cursor.setPosition(utf16_offset(p.content, q.end), QTextCursor.MoveMode.KeepAnchor)
        mark = QTextEdit.ExtraSelection()
        mark.cursor = cursor
        mark.format.setBackground(self.palette().color(QPalette.ColorRole.Highlight))
        mark.format.setForeground(self.palette().color(QPalette.ColorRole.HighlightedText))
        self.preview.setExtraSelections([mark])
        self.preview.setTextCursor(QTextCursor(cursor.document().findBlock(cursor.selectionStart())))
        self.preview.ensureCursorVisible()

    def highlighted_text(self) -> str:
        """The text highlighted in the preview (the quote, when its passage is shown), for tests and a11y."""
        marks = self.preview.extraSelections()
        return marks[0].cursor.selectedText().replace("\u2029", "\n") if marks else ""

    def on_item_double_clicked(self, _item) -> None:
        """The passage in the window's viewer pane (its quote marked), or in the system viewer without one."""
        p = self.current_passage()
        item = self.list.currentItem()
        context = self._context_items.get(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None
        if self.memory_viewer is not None and (context is not None or (p is not None and is_memory(p))):
            self.memory_viewer(context if context is not None else
                               {"kind": p.kind, "text": p.content, "label": p.place})
        elif self.viewer is not None and p is not None and not is_memory(p) and p.chunk_id is not None:
            quote = self.quote if self.quote is not None and self.quote.n == p.n else None
            self.viewer(p.chunk_id, quote.text if quote is not None else "")
        else:
            self.open_current()

    def on_open_clicked(self) -> None:
        self.open_current()
