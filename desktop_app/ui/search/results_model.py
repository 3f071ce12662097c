"""The list model behind the search results view: one row per RetrievalResult."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

from desktop_app.core.pathnames import display_path
from desktop_app.core.types import RetrievalResult
from desktop_app.ui.safe_document import plain_tooltip
from desktop_app.ui.search.snippets import snippet_html
from desktop_app.ui.search.type_icons import TYPE_NAMES, result_icon

ResultRole = Qt.ItemDataRole.UserRole + 1
SnippetHtmlRole = Qt.ItemDataRole.UserRole + 2
LocationRole = Qt.ItemDataRole.UserRole + 3

Index = QModelIndex | QPersistentModelIndex
VERBATIM_TYPES = ("code", "csv")  # their `#`, `*` and `<…>` are the content, not markup: snippets keep them


def page_text(meta: dict[str, Any]) -> str:
    """How a result names where it is in its file: "slide 3", "sheet Budget rows 2-41", or "p. 3"."""
    if meta.get("label"):
        return str(meta["label"])
    return f"p. {meta['page']}" if meta.get("page") is not None else ""


def location_text(result: RetrievalResult) -> str:
    """"folder · p. 3 · PDF · OCR" for the line under the file name."""
    meta = result.metadata
    parts = [display_path(os.path.basename(os.path.dirname(result.source)) or os.path.dirname(result.source)),
             page_text(meta)]
    if meta.get("type"):
        parts.append(TYPE_NAMES.get(meta["type"], str(meta["type"])))
    if meta.get("ocr"):
        parts.append("OCR")  # read from a scan or photo: the text may hold recognition errors
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
        self._snippets = [snippet_html(r.content, r.metadata.get("highlights") or (),
                                       markup=r.metadata.get("type") not in VERBATIM_TYPES) for r in self._results]
        self.endResetModel()

    def clear(self) -> None:
        self.set_results([])

    def result(self, row: int) -> RetrievalResult:
        return self._results[row]

    def results(self) -> list[RetrievalResult]:
        return list(self._results)

    def rowCount(self, parent: Index | None = None) -> int:
        return 0 if parent is not None and parent.isValid() else len(self._results)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._results):
            return None
        r = self._results[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return display_path(os.path.basename(r.source) or r.source)
        if role == Qt.ItemDataRole.ToolTipRole:
            where = page_text(r.metadata)
            return plain_tooltip(display_path(r.source) + (f" ({where})" if where else ""))
        if role == Qt.ItemDataRole.DecorationRole:
            return result_icon(r.metadata)
        if role == ResultRole:
            return r
        if role == SnippetHtmlRole:
            return self._snippets[index.row()]
        if role == LocationRole:
            return location_text(r)
        return None
