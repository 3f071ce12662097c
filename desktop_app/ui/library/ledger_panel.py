"""The library ledger window: every file Trove knows, filterable by folder, state, type and language, sortable,
with counts that match `trove stats`, and retry / open / show in folder for the selected files.

Every read (the page of rows, the counts, the filter choices) and the retry run on the task runner through the
facade (`library.ledger`, `library.stats`); the table is a LedgerModel that fetches a page as the view scrolls.
"""

from __future__ import annotations

import os
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.pathnames import display_path
from desktop_app.core.store.ledger_rows import STATE_NAMES, FileState, LedgerQuery, LedgerRow, LedgerTotals, file_of
from desktop_app.core.text.language import LANGUAGE_NAMES
from desktop_app.ui import open_file
from desktop_app.ui.library.ledger_model import LedgerModel
from desktop_app.ui.search.type_icons import TYPE_NAMES
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.units import counted


class LedgerPanel(QDialog):
    """The ledger of one library. Non-modal.

    Signals:
        counts_shown(object): the counts of the current filters arrived (LedgerTotals).
        retried(object): a retry finished (the SyncReport).
    """

    counts_shown = Signal(object)
    retried = Signal(object)

    def __init__(self, library: Any, tasks: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Library files")
        self.setObjectName("ledgerPanel")
        self.resize(1000, 560)
        self.library, self.tasks = library, tasks
        self.model = LedgerModel(library.ledger, tasks, self)
        self._build()
        self.model.load_failed.connect(self.on_load_failed)
        self.model.page_loaded.connect(lambda _n: self._update_buttons())

    def _build(self) -> None:
        self.folder_box, self.state_box, self.type_box, self.lang_box = (QComboBox(self) for _ in range(4))
        for box, everything in ((self.folder_box, "All folders"), (self.state_box, "Every state"),
                                (self.type_box, "Every type"), (self.lang_box, "Every language")):
            box.addItem(everything, "")
            box.currentIndexChanged.connect(self.on_filter_changed)
        for state in FileState:
            self.state_box.addItem(STATE_NAMES[state], str(state))
        self.state_box.setObjectName("ledgerState")
        filters = QHBoxLayout()
        for box in (self.folder_box, self.state_box, self.type_box, self.lang_box):
            filters.addWidget(box)
        filters.addStretch(1)
        self.counts_label = QLabel("", self)
        self.counts_label.setObjectName("ledgerCounts")
        self.table = QTableView(self)
        self.table.setObjectName("ledgerTable")
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        self.table.horizontalHeader().setSortIndicator(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)  # one line a file: a long reason or folder is elided, its tooltip has it all
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setColumnWidth(0, 260)
        self.table.setColumnWidth(2, 280)
        self.table.doubleClicked.connect(lambda _index: self.on_open_clicked())
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._update_buttons())
        self.retry_button = QPushButton("&Retry", self)
        self.open_button = QPushButton("&Open", self)
        self.show_button = QPushButton("Show in &folder", self)
        self.retry_button.clicked.connect(self.on_retry_clicked)
        self.open_button.clicked.connect(self.on_open_clicked)
        self.show_button.clicked.connect(self.on_show_clicked)
        buttons = QHBoxLayout()
        buttons.addWidget(self.counts_label, 1)
        for button in (self.retry_button, self.open_button, self.show_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        self._update_buttons()

    # ---- filters and counts --------------------------------------------------------------------

    def refresh(self) -> None:
        """Load the filter choices, then the rows and counts of the current filters."""
        self.tasks.run(self.library.stats, self.on_stats)
        self.reload()

    def reload(self) -> None:
        query = self.query()
        self.model.set_query(query)
        self.tasks.run(lambda: self.library.ledger.counts(query), self.on_counts)

    def query(self) -> LedgerQuery:
        """The LedgerQuery the filter boxes say (and the table's current sort)."""
        state = self.state_box.currentData()
        return LedgerQuery(folder=self.folder_box.currentData() or "", states=(FileState(state),) if state else (),
                           type=self.type_box.currentData() or "", lang=self.lang_box.currentData() or "",
                           sort=self.model.query.sort, descending=self.model.query.descending)

    def on_stats(self, stats: dict) -> None:
        """Fill the folder, type and language choices (keeping what is chosen)."""
        self._fill(self.folder_box, [(display_path(f["path"]), f["path"]) for f in stats["folders"]])
        self._fill(self.type_box, [(TYPE_NAMES.get(kind, kind), kind) for kind, _n in stats["formats"]])
        self._fill(self.lang_box, [(LANGUAGE_NAMES.get(code, code), code) for code, _n in stats["languages"]])

    def _fill(self, box: QComboBox, choices: list[tuple[str, str]]) -> None:
        chosen = box.currentData()
        box.blockSignals(True)
        while box.count() > 1:
            box.removeItem(1)
        for text, data in choices:
            box.addItem(text, data)
        box.setCurrentIndex(max(box.findData(chosen), 0))
        box.blockSignals(False)

    def on_filter_changed(self, _index: int) -> None:
        self.reload()

    def on_counts(self, counts: LedgerTotals) -> None:
        parts = [f"{STATE_NAMES[s]} {n}" for s, n in counts.items() if n]
        unread = f", {counts.not_read} never read (hidden or unsupported)" if counts.not_read else ""
        self.counts_label.setText(f"{counted(counts.documents, 'document')} indexed, {counts.failed} not{unread}"
                                  + (f"  ({', '.join(parts)})" if parts else ""))
        for i, state in enumerate(FileState, start=1):
            self.state_box.setItemText(i, f"{STATE_NAMES[state]} ({counts[state]})")
        self.counts_shown.emit(counts)

    def on_load_failed(self, message: str) -> None:
        self.counts_label.setText(f"Could not list the files: {message}")

    # ---- actions -------------------------------------------------------------------------------

    def selected_rows(self) -> list[LedgerRow]:
        return [self.model.row(i.row()) for i in self.table.selectionModel().selectedRows()]

    def _update_buttons(self) -> None:
        rows = self.selected_rows()
        self.retry_button.setEnabled(any(r.reason for r in rows) and not self.library.read_only)
        self.open_button.setEnabled(len(rows) == 1)
        self.show_button.setEnabled(len(rows) == 1)

    def on_retry_clicked(self) -> None:
        paths = [r.path for r in self.selected_rows() if r.reason]
        if paths:
            self.retry_button.setEnabled(False)
            self.tasks.run(lambda: self.library.ledger.retry(paths, wait=True), self.on_retried)

    def on_retried(self, report: Any) -> None:
        self.reload()
        self.retried.emit(report)

    def on_open_clicked(self) -> None:
        rows = self.selected_rows()
        if len(rows) == 1:
            open_file.open_path(file_of(rows[0].path))

    def on_show_clicked(self) -> None:
        rows = self.selected_rows()
        if len(rows) == 1:
            open_file.open_path(os.path.dirname(file_of(rows[0].path)))


def open_ledger_panel(window: Any) -> LedgerPanel:
    """Show the window's ledger (created once), up to date."""
    panel = getattr(window, "ledger_panel", None)
    if panel is None:
        panel = LedgerPanel(window.library, window.tasks, parent=window)
        window.ledger_panel = panel
    panel.refresh()
    if panel.isVisible():
        panel.raise_()
    else:
        panel.show()
    return panel
