"""The chat pane's column of past chats: loaded off the UI thread, newest first, one click opens a chat.

Its width follows the font, not a pixel count: wide enough for a short question as a title (TITLE_CHARS average
characters) and never narrower than a few words (MIN_CHARS), so at 200 % or with a large font it still reads; the
splitter beside it lets the person drag it wider.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from desktop_app.core.log import get_logger
from desktop_app.ui.safe_document import plain_tooltip
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.units import counted

log = get_logger("ui")

# "How hot is Venus?" and most first questions fit whole, a longer one is elided (its tooltip has it all); wider, and
# with the viewer open the transcript beside it would be squeezed to a column of a few words
TITLE_CHARS = 22
MIN_CHARS = 12  # dragged narrower than this, a title is a word or two: not worth showing


class ChatList(QListWidget):
    """Past chats of the library, each item's data the chat's id; the current chat selected.

    Signals:
        chat_chosen(int): the person clicked a past chat (its id).
    """

    chat_chosen = Signal(int)

    def __init__(self, chat, tasks: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chat = chat  # the library's ChatService: list_chats
        self.tasks = tasks
        self.setObjectName("chatList")
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setMinimumWidth(self._chars_wide(MIN_CHARS))
        self.itemClicked.connect(self.on_item_clicked)

    def _chars_wide(self, chars: int) -> int:
        """Pixels for `chars` average characters of the list's font, with the frame and the scroll bar."""
        bar = self.verticalScrollBar().sizeHint().width()
        return self.fontMetrics().averageCharWidth() * chars + 2 * self.frameWidth() + bar + 8

    def sizeHint(self) -> QSize:
        """As wide as a typical chat title (the splitter starts it there); as tall as a list's usual hint."""
        return QSize(self._chars_wide(TITLE_CHARS), super().sizeHint().height())

    def reload(self, current: Callable[[], int | None]) -> None:
        """List the chats again off the UI thread, selecting the chat that is `current()` when the list arrives."""
        self.tasks.run(self.chat.list_chats, lambda chats: self.show_chats(chats, current()),
                       lambda exc: log.warning("chats: %s", exc))

    def show_chats(self, summaries, current: int | None) -> None:
        """Past chats, newest first as listed, the current one selected."""
        self.clear()
        for summary in summaries:
            item = QListWidgetItem(summary.title or "(untitled)")
            item.setData(Qt.ItemDataRole.UserRole, summary.id)
            item.setToolTip(plain_tooltip(f"{summary.title}\n{counted(summary.message_count // 2, 'question')}"))
            self.addItem(item)
            if summary.id == current:
                self.setCurrentItem(item)

    def on_item_clicked(self, item: QListWidgetItem) -> None:
        self.chat_chosen.emit(item.data(Qt.ItemDataRole.UserRole))
