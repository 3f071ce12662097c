"""The chat pane's question box: the text, Send (or Ctrl+Enter) and Stop, and whether to answer from the documents."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget


class AskBox(QWidget):
    """Where a question is typed and sent. It does not ask: the pane does, and clears the text once it took it.

    Signals:
        send_requested(str): Send was clicked or Ctrl+Enter pressed (the typed text, possibly blank).
        stop_requested(): Stop was clicked.
    """

    send_requested = Signal(str)
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.input = QPlainTextEdit(placeholderText="Ask a question about your documents  (Ctrl+Enter to send)")
        self.input.setObjectName("chatInput")
        self.input.setMaximumHeight(80)
        self.input.installEventFilter(self)
        self.use_context = QCheckBox("Answer from my documents", checked=True)
        self.send_button = QPushButton("Send")
        self.send_button.setDefault(True)
        self.send_button.clicked.connect(self.on_send_clicked)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop_requested.emit)
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        ask_row = QHBoxLayout()
        ask_row.addWidget(self.input, 1)
        ask_row.addLayout(buttons)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(ask_row)
        layout.addWidget(self.use_context)

    def set_busy(self, busy: bool) -> None:
        """While an answer streams: Stop on, Send off."""
        self.stop_button.setEnabled(busy)
        self.send_button.setEnabled(not busy)

    def on_send_clicked(self) -> None:
        self.send_requested.emit(self.input.toPlainText())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (watched is self.input and event.type() == QEvent.Type.KeyPress
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
                and event.modifiers() & Qt.KeyboardModifier.ControlModifier):
            self.on_send_clicked()
            return True
        return False
