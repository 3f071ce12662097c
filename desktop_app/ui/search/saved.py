"""The search pane's Saved menu: keep the search box's query (words and filters, as typed) under a name, run one
again, rename or delete one. The searches are the library's (`Library.saved`, kept in its home); the menu reads
them each time it opens, so one saved from a terminal (`trove saved add`) is there too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QInputDialog, QLineEdit, QMenu, QMessageBox, QToolButton, QWidget

from desktop_app.core.errors import KnownError
from desktop_app.core.log import get_logger

log = get_logger("ui")
MAX_SHOWN = 50  # a menu, not a manager: more than this are reached from `trove saved list`


class SavedSearchesMenu(QToolButton):
    """"Saved ▾": the library's saved searches.

    Signals:
        query_chosen(str): a saved search was chosen; its query (the pane types it into the box).
        failed(str): saving, renaming or deleting failed (the one-line reason).
    """

    query_chosen = Signal(str)
    failed = Signal(str)

    def __init__(self, saved: Any = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("savedSearches")
        self.setText("Saved")
        self.setToolTip("Save this search under a name, or run a saved one")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.saved = saved  # Library.saved; None: no library behind the pane (the button is hidden)
        self.query = ""  # the search box's text
        self.ask_text: Callable[[str, str, str], str | None] = self._ask  # dialogs; tests answer for them
        self.confirm: Callable[[str], bool] = self._confirm
        self.menu_ = QMenu(self)
        self.menu_.aboutToShow.connect(self.on_about_to_show)
        self.setMenu(self.menu_)
        self.setVisible(saved is not None)

    def on_about_to_show(self) -> None:
        """Rebuild the menu from the library's saved searches."""
        self.menu_.clear()
        save = self.menu_.addAction("Save this search…", self.save_current)
        save.setEnabled(bool(self.query.strip()))
        searches = self._searches()
        if not searches:
            return
        self.menu_.addSeparator()
        for s in searches[:MAX_SHOWN]:
            action = self.menu_.addAction(s.name, lambda q=s.query: self.query_chosen.emit(q))
            action.setToolTip(s.query)
            action.setStatusTip(s.query)
        self.menu_.addSeparator()
        rename, delete = self.menu_.addMenu("Rename"), self.menu_.addMenu("Delete")
        for s in searches[:MAX_SHOWN]:
            rename.addAction(s.name, lambda n=s.name: self.rename(n))
            delete.addAction(s.name, lambda n=s.name: self.delete(n))

    def save_current(self) -> bool:
        """Ask for a name and keep the box's query under it (asking before replacing one of that name)."""
        query = self.query.strip()
        name = (self.ask_text("Save search", f"Name for “{query}”:", "") or "").strip() if query else ""
        if not name:
            return False
        taken = any(s.name.casefold() == name.casefold() for s in self._searches())
        if taken and not self.confirm(f"Replace the saved search “{name}”?"):
            return False
        return self._do(lambda: self.saved.save(name, query, replace=taken))

    def rename(self, name: str) -> bool:
        new_name = (self.ask_text("Rename saved search", f"New name for “{name}”:", name) or "").strip()
        return bool(new_name) and new_name != name and self._do(lambda: self.saved.rename(name, new_name))

    def delete(self, name: str) -> bool:
        return self.confirm(f"Delete the saved search “{name}”?") and self._do(lambda: self.saved.remove(name))

    def _searches(self) -> list:
        try:
            return self.saved.searches() if self.saved is not None else []
        except KnownError as exc:  # a damaged file: say so, keep the menu usable for a new search
            self.failed.emit(str(exc))
            return []

    def _do(self, change: Callable[[], object]) -> bool:
        try:
            change()
        except KnownError as exc:
            log.warning("saved search: %s", exc)
            self.failed.emit(str(exc))
            return False
        return True

    def _ask(self, title: str, prompt: str, text: str) -> str | None:
        answer, ok = QInputDialog.getText(self, title, prompt, QLineEdit.EchoMode.Normal, text)
        return answer if ok else None

    def _confirm(self, question: str) -> bool:
        buttons = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
        return QMessageBox.question(self, "Saved searches", question, buttons) == QMessageBox.StandardButton.Yes
