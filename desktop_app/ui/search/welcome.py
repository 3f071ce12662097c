"""The search pane's empty state: what the modes do, which filters there are, and an example query to try."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desktop_app.ui.chat.welcome import LinkButton
from desktop_app.ui.safe_document import make_plain

HOW = "Type to search: results appear as you type. ↓ moves into them, Enter opens one, Esc clears."
MODES_TEXT = ("Modes\n"
              "  Hybrid — the words and their meaning together (the default)\n"
              "  Keyword — the exact words, in any language\n"
              "  Semantic — the meaning, even in other words")
FILTERS_TEXT = ("Filters\n"
                "  a folder, a file type, and a language once the library holds two")


class SearchHint(QWidget):
    """Shown in place of the results while the search box is empty.

    Signals:
        example_clicked(str): the person wants to try the example query (its text).
    """

    example_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("searchHint")
        self.example = ""
        self.how = QLabel(HOW, wordWrap=True)
        self.modes = QLabel(MODES_TEXT, wordWrap=True)
        self.filters = QLabel(FILTERS_TEXT, wordWrap=True)
        make_plain(self.how, self.modes, self.filters)
        self.try_button = LinkButton()
        self.try_button.setObjectName("searchExample")
        self.try_button.clicked.connect(lambda: self.example_clicked.emit(self.example))
        layout = QVBoxLayout(self)
        margin = self.fontMetrics().height() // 2
        layout.setContentsMargins(margin, margin, margin, margin)
        layout.addWidget(self.how)
        layout.addWidget(self.try_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addSpacing(margin)
        layout.addWidget(self.modes)
        layout.addWidget(self.filters)
        layout.addStretch(1)
        self.set_example("")

    def set_example(self, text: str) -> None:
        """The query offered: a key term of the library (none yet: no button)."""
        self.example = text
        self.try_button.setText(f"Try: {text.replace('&', '&&')}")  # a button's text is plain, but & is a mnemonic
        self.try_button.setVisible(bool(text))
