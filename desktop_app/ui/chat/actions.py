"""Chat actions on search results: "Ask about these" (scope the chat to the selected results' files) and
"Summarise" (the selected result's document), from the results list's context menu."""

from __future__ import annotations

from PySide6.QtCore import QObject, QPoint, Qt
from PySide6.QtWidgets import QAbstractItemView, QMenu


def unique(paths) -> list[str]:
    """Paths in first-seen order, without repeats (several results can come from one file)."""
    return list(dict.fromkeys(p for p in paths if p))


class ResultChatActions(QObject):
    """Adds a context menu to the search panel's results list that hands files to the chat pane.

    Several results can be selected (Ctrl/Shift-click); "Ask about these" limits the chat to their files.
    """

    def __init__(self, search_panel, chat_pane) -> None:
        super().__init__(search_panel)
        self.panel, self.chat_pane = search_panel, chat_pane
        view = search_panel.view
        view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(self.on_context_menu_requested)

    def selected_paths(self) -> list[str]:
        """The files of the selected results, in list order (the current one when nothing is selected)."""
        view, model = self.panel.view, self.panel.model
        rows = sorted(i.row() for i in view.selectionModel().selectedRows())
        if not rows and view.currentIndex().isValid():
            rows = [view.currentIndex().row()]
        return unique(model.result(r).source for r in rows)

    def menu(self) -> QMenu | None:
        """The actions for the current selection (a method so tests can trigger them without a popup)."""
        paths = self.selected_paths()
        if not paths:
            return None
        menu = QMenu(self.panel)
        label = "Ask about this file" if len(paths) == 1 else f"Ask about these {len(paths)} files"
        menu.addAction(label, lambda: self.chat_pane.set_scope(paths))
        summarise = menu.addAction("Summarise this document", lambda: self.chat_pane.summarize(paths[0]))
        summarise.setEnabled(len(paths) == 1 and not self.chat_pane.busy)
        return menu

    def on_context_menu_requested(self, pos: QPoint) -> None:
        view = self.panel.view
        index = view.indexAt(pos)
        if index.isValid() and not view.selectionModel().isSelected(index):
            view.setCurrentIndex(index)
        menu = self.menu()
        if menu is not None:
            menu.exec(view.viewport().mapToGlobal(pos))
