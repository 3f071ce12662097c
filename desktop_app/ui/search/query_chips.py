"""The parsed form of the search box's query, under it: one removable chip per part of the query language.

A chip is shown for each phrase, exclusion, OR, filter and date, and for each part that looked like syntax but is
searched as words (with why); plain words are not chips. Removing a chip rewrites the query without that part
(`without_chip`), so the box stays the one truth and the search runs again as if it had been typed.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QSizePolicy, QToolButton, QWidget

from desktop_app.core.search.query_language import Chip, ChipKind, parse_query, without_chip

SHOWN = (ChipKind.PHRASE, ChipKind.EXCLUDE, ChipKind.OR, ChipKind.FILTER, ChipKind.DATE, ChipKind.PLAIN)
MAX_CHIPS = 12  # a pasted page of syntax must not build hundreds of buttons on each key


class QueryChips(QWidget):
    """Chips for a query's parts; hidden while the query has none.

    Signals:
        query_edited(str): a chip was removed; the query without it.
    """

    query_edited = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("queryChips")
        # Many chips must not widen the pane (and the window past a small screen): the row is clipped instead.
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._text = ""
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(0, 0, 0, 0)
        self._row.setSpacing(4)
        self._row.addStretch(1)
        self.buttons: list[QToolButton] = []
        self.setVisible(False)

    def show_query(self, text: str) -> None:
        """Show the chips of `text` (the search box's query)."""
        self._text = text
        chips = [c for c in parse_query(text).chips if c.kind in SHOWN][:MAX_CHIPS]
        for button in self.buttons:
            self._row.removeWidget(button)
            button.deleteLater()
        self.buttons = [self._button(chip) for chip in chips]
        for i, button in enumerate(self.buttons):
            self._row.insertWidget(i, button)
        self.setVisible(bool(self.buttons))

    def _button(self, chip: Chip) -> QToolButton:
        button = QToolButton(self)
        button.setText(f"{chip.label}  ✕")
        button.setObjectName("queryChip")
        button.setProperty("kind", chip.kind.value)
        plain = chip.kind == ChipKind.PLAIN
        button.setToolTip(f"Searched as words: {chip.note}. Click to remove." if plain else
                          "Click to remove this part of the query.")
        if plain:
            font = button.font()
            font.setItalic(True)
            button.setFont(font)
        button.clicked.connect(lambda _checked=False, c=chip: self.on_chip_clicked(c))
        return button

    def on_chip_clicked(self, chip: Chip) -> None:
        self.query_edited.emit(without_chip(self._text, chip))
