"""Tables of the Models dialog: your models and the catalog, as rows of text cells."""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from desktop_app.core.chat.models.catalog import CatalogEntry
from desktop_app.ui.units import format_bytes

COLUMNS = ("", "Name", "Size", "Quantisation", "Context", "RAM needed", "Licence", "Check")


def context_label(tokens: int) -> str:
    """'32k tokens' (or '?' when the file does not say)."""
    return f"{tokens // 1024}k tokens" if tokens >= 1024 else (f"{tokens} tokens" if tokens else "?")


def model_row(entry) -> list[str]:
    """The cells of one of your models: default and check marks, name (origin), size, quantisation, context, RAM,
    licence."""
    check = "✓ verified" if entry.verified else "unverified"
    if entry.problem:
        check = entry.problem
    origin = {"bundled": "built in", "local": "file", "downloaded": "downloaded"}[entry.origin]
    marks = ["● default"] * entry.is_default + ["◆ checks quotes"] * entry.checks_quotes
    return [
        "  ".join(marks),
        f"{entry.name}  ({origin})",
        format_bytes(entry.size_bytes) if entry.exists else "—",
        entry.quantization or "?",
        context_label(entry.context_length),
        f"~{format_bytes(entry.ram_bytes)}" if entry.exists else "—",
        entry.license or "?",
        check,
    ]


def catalog_row(entry: CatalogEntry, recommended: bool, n_ctx: int) -> list[str]:
    """The cells of one catalog entry (★ on the one recommended for this machine)."""
    return [
        "★ for you" if recommended else "",
        entry.name,
        format_bytes(entry.size_bytes),
        entry.quantization,
        context_label(entry.context_length),
        f"~{format_bytes(entry.ram_bytes(n_ctx))}",
        entry.license,
        "SHA-256 pinned" if entry.verified else "unverified",
    ]


def make_table(columns: tuple[str, ...]) -> QTableWidget:
    """A read-only, single-row-selection table with compact rows and a stretching name column."""
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 10)  # compact rows
    table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
    return table


def fill_table(table: QTableWidget, rows: list[list[str]], bold_row: int = -1, tips: list[str] | None = None) -> None:
    """Replace the table's rows; `bold_row` is emphasised (the default model, the recommended download)."""
    table.setRowCount(len(rows))
    for r, values in enumerate(rows):
        for c, value in enumerate(values):
            item = QTableWidgetItem(value)
            if r == bold_row:
                font = QFont(item.font())
                font.setBold(True)
                item.setFont(font)
            if tips:
                item.setToolTip(tips[r])
            table.setItem(r, c, item)
