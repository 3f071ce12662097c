"""The chat pane's scope bar: which files and folders the next questions are limited to, and the way back to the
whole library."""

from __future__ import annotations

import os

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget


def scope_text(paths) -> str:
    """"Asking about: a.pdf, notes/ (+2 more)" for the scope bar."""
    names = [os.path.basename(p.rstrip("/\\")) + ("/" if os.path.isdir(p) else "") for p in paths]
    shown = ", ".join(names[:3]) + (f" (+{len(names) - 3} more)" if len(names) > 3 else "")
    return f"Asking about: {shown}"


class ScopeBar(QWidget):
    """Names the files and folders questions are limited to, with All documents; hidden for the whole library."""

    cleared = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel()
        self.label.setObjectName("chatScope")
        self.clear = QPushButton("All documents")
        self.clear.setToolTip("Answer from the whole library again")
        self.clear.clicked.connect(self.cleared.emit)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.clear)

    def show_scope(self, scope: tuple[str, ...]) -> None:
        self.label.setText(scope_text(scope) if scope else "")
        self.label.setToolTip("\n".join(scope))
        self.label.setVisible(bool(scope))
        self.clear.setVisible(bool(scope))
        self.setVisible(bool(scope))
