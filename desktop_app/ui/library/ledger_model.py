"""The table model behind the library ledger: rows fetched a page at a time on the task runner.

Qt asks `canFetchMore` / `fetchMore` as the view scrolls near the end; each asks the facade for the next page on
a worker and appends it when it arrives, so opening the ledger on 100k files reads one page, never all of them,
and the UI thread never runs a query. A new query (a filter, a sort) starts a new generation: pages of the old one
that arrive late are dropped.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from desktop_app.core.pathnames import display_path
from desktop_app.core.store.ledger_rows import STATE_NAMES, LedgerQuery, LedgerRow, LedgerSort
from desktop_app.core.text.language import LANGUAGE_NAMES
from desktop_app.ui.safe_document import plain_tooltip
from desktop_app.ui.search.type_icons import TYPE_NAMES
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.units import format_bytes

Index = QModelIndex | QPersistentModelIndex
PAGE = 200
COLUMNS = ("Name", "State", "Reason", "Type", "Language", "Size", "Folder")
# the sort each column asks the store for (None: not sortable there)
SORTS: dict[int, LedgerSort | None] = {0: LedgerSort.PATH, 1: LedgerSort.STATE, 2: LedgerSort.REASON,
                                       3: LedgerSort.TYPE, 4: None, 5: LedgerSort.SIZE, 6: LedgerSort.PATH}


def row_name(row: LedgerRow) -> str:
    """A file's name, or for a document inside a file its label (the file named in the tooltip)."""
    return display_path(row.part_label or os.path.basename(row.path) or row.path)


class LedgerModel(QAbstractTableModel):
    """Ledger rows for one LedgerQuery.

    Signals:
        page_loaded(int): a page arrived (rows now held).
        load_failed(str): a page could not be read (why, in one line); no more are asked for this query.
    """

    page_loaded = Signal(int)
    load_failed = Signal(str)

    def __init__(self, ledger: Any, tasks: TaskRunner, parent=None) -> None:
        super().__init__(parent)
        self._ledger = ledger
        self._tasks = tasks
        self._rows: list[LedgerRow] = []
        self._query = LedgerQuery()
        self._generation = 0
        self._loading = False
        self._exhausted = False

    @property
    def query(self) -> LedgerQuery:
        return self._query

    def set_query(self, query: LedgerQuery) -> None:
        """Show the rows of `query` from the first page."""
        self.beginResetModel()
        self._query, self._rows = query, []
        self._generation += 1
        self._loading = self._exhausted = False
        self.endResetModel()
        self.fetchMore(QModelIndex())

    def reload(self) -> None:
        self.set_query(self._query)

    def row(self, n: int) -> LedgerRow:
        return self._rows[n]

    def is_loading(self) -> bool:
        return self._loading

    # ---- paged fetch ---------------------------------------------------------------------------

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008 -- Qt's own default
        return not parent.isValid() and not self._exhausted and not self._loading

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008 -- Qt's own default
        if not self.canFetchMore(parent):
            return
        self._loading = True
        generation, query, offset = self._generation, self._query, len(self._rows)
        self._tasks.run(lambda: self._ledger.page(query, offset=offset, limit=PAGE),
                        lambda rows: self.on_page(generation, rows),
                        lambda exc: self.on_page_failed(generation, exc))

    def on_page(self, generation: int, rows: list[LedgerRow]) -> None:
        if generation != self._generation:
            return  # a page of a query the person has left
        self._loading = False
        self._exhausted = len(rows) < PAGE
        if rows:
            self.beginInsertRows(QModelIndex(), len(self._rows), len(self._rows) + len(rows) - 1)
            self._rows.extend(rows)
            self.endInsertRows()
        self.page_loaded.emit(len(self._rows))

    def on_page_failed(self, generation: int, exc: BaseException) -> None:
        if generation == self._generation:
            self._loading, self._exhausted = False, True
            self.load_failed.emit(str(exc) or type(exc).__name__)

    # ---- the table -----------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 -- Qt's own default
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 -- Qt's own default
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        r = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cell(r, index.column())
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tooltip(display_path(r.path) + (f"\n{display_path(r.reason)}" if r.reason else ""))
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 5:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    @staticmethod
    def _cell(r: LedgerRow, column: int) -> str:
        if column == 0:
            return row_name(r)
        if column == 1:
            return STATE_NAMES[r.state]
        if column == 2:
            return display_path(r.reason)
        if column == 3:
            return TYPE_NAMES.get(r.type, r.type)
        if column == 4:
            return LANGUAGE_NAMES.get(r.lang, r.lang)
        if column == 5:
            return format_bytes(r.size) if r.size > 0 else ""
        return display_path(os.path.dirname(r.path))

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sorted by the store (the whole ledger, not the pages held)."""
        by = SORTS.get(column)
        if by is None:
            return
        query = replace(self._query, sort=by, descending=order == Qt.SortOrder.DescendingOrder)
        if query != self._query:  # the view sorts once as sorting is turned on: the order the rows already have
            self.set_query(query)
