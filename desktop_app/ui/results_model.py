"""The list model behind the search results view: one row per RetrievalResult."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

from desktop_app.core.types import RetrievalResult
from desktop_app.ui.snippets import snippet_html
from desktop_app.ui.type_icons import TYPE_NAMES, type_icon

ResultRole = Qt.ItemDataRole.UserRole + 1
SnippetHtmlRole = Qt.ItemDataRole.UserRole + 2
LocationRole = Qt.ItemDataRole.UserRole + 3

Index = QModelIndex | QPersistentModelIndex


def location_text(result: RetrievalResult) -> str:
    """"folder · p. 3 · PDF" for the line under the file name."""
    meta = result.metadata
    parts = [os.path.basename(os.path.dirname(result.source)) or os.path.dirname(result.source)]
    if meta.get("page") is not None:
        parts.append(f"p. {meta['page']}")
    if meta.get("type"):
        parts.append(TYPE_NAMES.get(meta["type"], str(meta["type"])))
    if meta.get("machine"):
        parts.append(f"on {meta['machine']}")  # a team library: the file is on another desktop's disk
    return " · ".join(p for p in parts if p)


class ResultsModel(QAbstractListModel):
    """Search results, best first. Snippet HTML is built once per result, not on every paint."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._results: list[RetrievalResult] = []
        self._snippets: list[str] = []

    def set_results(self, results: Sequence[RetrievalResult]) -> None:
        self.beginResetModel()
        self._results = list(results)
        self._snippets = [snippet_html(r.content, r.metadata.get("highlights") or ()) for r in self._results]
        self.endResetModel()

    def clear(self) -> None:
        self.set_results([])

    def result(self, row: int) -> RetrievalResult:
        return self._results[row]

    def results(self) -> list[RetrievalResult]:
        return list(self._results)

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._results)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._results):
            return None
        r = self._results[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return os.path.basename(r.source) or r.source
        if role == Qt.ItemDataRole.ToolTipRole:
            page = r.metadata.get("page")
            return r.source + (f" (page {page})" if page is not None else "")
        if role == Qt.ItemDataRole.DecorationRole:
            return type_icon(str(r.metadata.get("type", "")))
        if role == ResultRole:
            return r
        if role == SnippetHtmlRole:
            return self._snippets[index.row()]
        if role == LocationRole:
            return location_text(r)
        return None
