"""The search pane's keyboard: moving between the query box and the results, opening, clearing.

From the box: ↓ moves into the results, Enter opens the selected (or first) result, Shift+Enter with the system's
application, Esc clears the box; Enter typed before the debounce fired searches first, so it never opens a result
of an older query. In the results: Enter and Shift+Enter open, ↑ on the first row goes back to the box, Esc clears
the box and goes back to it.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent

ENTER = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


class ResultKeys(QObject):
    """An event filter on the pane's query box and results view; it handles the keys above and lets others pass."""

    def __init__(self, panel) -> None:
        super().__init__(panel)
        self.panel = panel  # the SearchPanel: its query, view, model, search_now, open_current and debounce timer
        panel.query.installEventFilter(self)
        panel.view.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return False
        system = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        if watched is self.panel.query:
            return self.in_box(event.key(), system)
        if watched is self.panel.view:
            return self.in_results(event.key(), system)
        return False

    def in_box(self, key: int, system: bool) -> bool:
        panel = self.panel
        if key == Qt.Key.Key_Down and panel.model.rowCount():
            panel.view.setFocus(Qt.FocusReason.OtherFocusReason)
            row = panel.view.currentIndex().row() if panel.view.currentIndex().isValid() else 0
            panel.view.setCurrentIndex(panel.model.index(row))
            return True
        if key in ENTER:
            if panel.debounce.isActive():
                panel.search_now()  # Enter before the debounce fired: search, don't open a stale result
            else:
                panel.open_current(system=system)
            return True
        if key == Qt.Key.Key_Escape and panel.query.text():
            panel.query.clear()
            return True
        return False

    def in_results(self, key: int, system: bool) -> bool:
        panel = self.panel
        if key in ENTER:
            panel.open_current(system=system)
            return True
        if key == Qt.Key.Key_Up and panel.view.currentIndex().row() <= 0:
            panel.query.setFocus(Qt.FocusReason.OtherFocusReason)
            return True
        if key == Qt.Key.Key_Escape:
            panel.query.clear()
            panel.query.setFocus(Qt.FocusReason.OtherFocusReason)
            return True
        return False
