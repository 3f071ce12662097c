"""The search pane's filters as syntax: the pickers (folder, type, language) and the Filters menu (dates, tags, file
name) write their choice into the query text, and show what the query text holds.

Nothing here keeps a filter of its own: a choice is `set_group` on the query (core/search/query_edit.py), and a
picker's shown choice is read back from the parsed text, so the box, its chips and the pickers always agree and
what is shown is what runs. A typed combination a picker cannot show (two types, an unknown folder) shows as
itself, as typed, in an extra entry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QComboBox, QInputDialog, QMenu, QToolButton, QWidget

from desktop_app.core.search.query_edit import filter_term, group_values
from desktop_app.core.search.query_language import period

TYPED = "\x00typed"  # the data of a picker's "as typed" entry
DATE_PRESETS = (("This week", "this week"), ("This month", "this month"), ("Last month", "last month"),
                ("This year", "this year"), ("Last year", "last year"))
MAX_TAGS = 20  # the menu lists the library's most used tags; any other is typed as tag:NAME


def show_values(box: QComboBox, group: str, values: Sequence[str]) -> None:
    """Make `box` show the query's `values` for its `group`, without telling anyone (no search starts)."""
    box.blockSignals(True)
    last = box.count() - 1
    if last > 0 and box.itemData(last) == TYPED:
        box.removeItem(last)
    index = 0
    if len(values) == 1:
        index = next((i for i in range(1, box.count()) if _names(box, i, group, values[0])), -1)
    elif values:
        index = -1
    if index < 0:  # shown as typed: the picker cannot name it, the chips still do
        box.addItem(" ".join(filter_term(group, v) for v in values), TYPED)
        index = box.count() - 1
    box.setCurrentIndex(index)
    box.blockSignals(False)


def _names(box: QComboBox, i: int, group: str, value: str) -> bool:
    """Whether entry `i` is the value: its data, or (a folder, typed by name) its shown name."""
    return box.itemData(i) == value or (group == "folder" and box.itemText(i).casefold() == value.casefold())


def folder_term(box: QComboBox, index: int) -> str:
    """`folder:NAME` for the folder at `index` (its full path when another library folder has the same name)."""
    path, name = box.itemData(index), box.itemText(index)
    same = [i for i in range(1, box.count()) if box.itemText(i).casefold() == name.casefold()]
    return filter_term("folder", name if len(same) == 1 else path)


class FiltersMenu(QToolButton):
    """"Filters ▾": date, tag and file-name filters, each written into the query as its syntax.

    Signals:
        group_chosen(str, str): a group (date, tag, file) and the term to put in its place ("" takes it out).
    """

    group_chosen = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("filtersMenu")
        self.setText("Filters")
        self.setToolTip("Dates, tags and file names: written into the search as its syntax")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.query = ""  # the search box's text, to tick what it holds
        self.tags: list[str] = []
        self.ask_text: Callable[[str, str], str | None] = self._ask  # a dialog; tests answer for it
        self.menu_ = QMenu(self)
        self.menu_.aboutToShow.connect(self.on_about_to_show)
        self.setMenu(self.menu_)
        self.on_about_to_show()

    def set_tags(self, tags: Sequence[Sequence]) -> None:
        """The library's tags ([tag, documents] pairs, most used first)."""
        self.tags = [str(tag) for tag, _n in tags][:MAX_TAGS]

    def on_about_to_show(self) -> None:
        """Rebuild the menu, ticking what the query holds now."""
        self.menu_.clear()
        dates = group_values(self.query, "date")
        date_menu = self.menu_.addMenu("Date")
        self._choices(date_menu, "date", [("Any time", "")] + [(label, term) for label, term in DATE_PRESETS],
                      dates[0] if len(dates) == 1 else None)
        date_menu.addSeparator()
        date_menu.addAction("After…", lambda: self._ask_date("after", "On or after (2024, 2024-03 or 2024-03-05):"))
        date_menu.addAction("Before…", lambda: self._ask_date("before", "Before (2024, 2024-03 or 2024-03-05):"))
        tags = group_values(self.query, "tag")
        tag_menu = self.menu_.addMenu("Tag")
        self._choices(tag_menu, "tag", [("Any tag", "")] + [(f"#{t}", filter_term("tag", t)) for t in self.tags],
                      filter_term("tag", tags[0]) if len(tags) == 1 else None)
        files = group_values(self.query, "file")
        file_menu = self.menu_.addMenu("File name")
        self._choices(file_menu, "file", [("Any file name", "")], "" if not files else None)
        file_menu.addAction("Containing…", self._ask_file)

    def _choices(self, menu: QMenu, group: str, choices: list[tuple[str, str]], current: str | None) -> None:
        """Checkable entries, one ticked when the query holds exactly it ("" ticks the "any" entry when it holds
        none of the group)."""
        exclusive = QActionGroup(menu)
        if not group_values(self.query, group):
            current = ""
        elif current is None:
            current = "\x00"  # several of the group: nothing ticked
        for label, term in choices:
            action = QAction(label, menu, checkable=True, checked=term == current)
            action.setData(term)
            action.triggered.connect(lambda _on=False, t=term: self.group_chosen.emit(group, t))
            exclusive.addAction(action)
            menu.addAction(action)

    def _ask_date(self, key: str, prompt: str) -> None:
        value = (self.ask_text("Date", prompt) or "").strip()
        if value and period(value):
            self.group_chosen.emit("date", f"{key}:{value}")

    def _ask_file(self) -> None:
        value = (self.ask_text("File name", "File names containing:") or "").strip()
        if value:
            self.group_chosen.emit("file", filter_term("file", value))

    def _ask(self, title: str, prompt: str) -> str | None:
        text, ok = QInputDialog.getText(self, title, prompt)
        return text if ok else None
