"""The search pane's filter row: the folder, type and language pickers and the Filters menu, each writing its choice
into the query and showing what the query holds (the syntax and the menu are filters.py's).

The pickers offer what the library has: its folders, the file types Trove reads, and the passages' languages once
there are two. Refilling a picker never starts a search: the query text is unchanged, so nothing new would run.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QWidget

from desktop_app.core.search.query_edit import filter_term, group_values
from desktop_app.core.text.language import LANGUAGE_NAMES
from desktop_app.ui.search.filters import TYPED, FiltersMenu, folder_term, show_values
from desktop_app.ui.search.type_icons import TYPE_NAMES


class FilterPickers(QWidget):
    """Folder, type and language pickers and the Filters menu, in one row.

    Signals:
        group_chosen(str, str): a picker or the menu chose a filter (the query group, its term; "" takes it out).
    """

    group_chosen = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folder_filter = QComboBox(toolTip="Only this folder")
        self.folder_filter.addItem("All folders", None)
        self.type_filter = QComboBox(toolTip="Only this file type")
        self.type_filter.addItem("All types", None)
        for key, name in TYPE_NAMES.items():
            self.type_filter.addItem(name, key)
        self.lang_filter = QComboBox(toolTip="Only passages in this language")
        self.lang_filter.addItem("All languages", None)
        self.lang_filter.setVisible(False)  # until the library holds two languages
        self.filters_menu = FiltersMenu()  # dates, tags, file names
        self.filters_menu.group_chosen.connect(self.group_chosen.emit)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        for box, stretch in ((self.folder_filter, 3), (self.type_filter, 2), (self.lang_filter, 2)):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(6)  # long names must not widen the window
            row.addWidget(box, stretch)  # the room shared out, so "All languages" is not cut short either
        row.addWidget(self.filters_menu)
        for group, box in self.boxes().items():
            box.currentIndexChanged.connect(lambda index, g=group: self.on_picker_changed(g, index))

    def boxes(self) -> dict[str, QComboBox]:
        """The pickers by the query group each writes."""
        return {"folder": self.folder_filter, "type": self.type_filter, "lang": self.lang_filter}

    def show_query(self, text: str) -> None:
        """Make the pickers and the Filters menu show what the query `text` holds."""
        for group, box in self.boxes().items():
            show_values(box, group, group_values(text, group))
        self.filters_menu.query = text

    def set_folders(self, paths: Sequence[str], query: str) -> None:
        """Offer these folders, keeping the current choice when it still exists (`query`: the box's text)."""
        box = self.folder_filter
        existing = [box.itemData(i) for i in range(1, box.count())]
        if list(paths) == [p for p in existing if p != TYPED]:
            return
        box.blockSignals(True)
        box.clear()
        box.addItem("All folders", None)
        for path in paths:
            box.addItem(path.rstrip("/").rsplit("/", 1)[-1] or path, path)
            box.setItemData(box.count() - 1, path, Qt.ItemDataRole.ToolTipRole)
        box.blockSignals(False)
        self.show_query(query)  # a typed folder that went away shows as typed; the query is unchanged

    def set_languages(self, languages: Sequence[Sequence], query: str) -> None:
        """Offer the library's chunk languages ([code, chunks] pairs, most first); shown only with two or more."""
        box = self.lang_filter
        codes = [str(code) for code, _ in languages]
        existing = [box.itemData(i) for i in range(1, box.count())]
        box.setVisible(len(codes) > 1)
        if codes == [c for c in existing if c != TYPED]:
            return
        box.blockSignals(True)
        box.clear()
        box.addItem("All languages", None)
        for code in codes:
            box.addItem(LANGUAGE_NAMES.get(code, code), code)
        box.blockSignals(False)
        self.show_query(query)

    def on_picker_changed(self, group: str, index: int) -> None:
        """A picker's choice as a query term ("All …" takes the group out)."""
        box = self.boxes()[group]
        if box.itemData(index) == TYPED:
            return  # the entry that shows the typed filters: choosing it changes nothing
        if group == "folder":
            term = folder_term(box, index) if index > 0 else ""
        else:
            term = filter_term(group, box.itemData(index)) if index > 0 else ""
        self.group_chosen.emit(group, term)
