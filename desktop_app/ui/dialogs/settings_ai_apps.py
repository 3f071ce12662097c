"""Settings → AI apps: connect Claude Desktop, Claude Code, Cursor or VS Code to this library over MCP.

Shows the exact snippet for the chosen app (the installed `trove` and this library's folder: desktop_app/mcp/
clients.py), a button that copies it, whether `trove mcp --http` is listening on this computer, and, on request,
the HTTP bearer token (made on first use, readable only by the person: desktop_app/mcp/http.py).
"""

from __future__ import annotations

import socket
from pathlib import Path

from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.mcp.clients import CLIENTS, WHERE, snippet, trove_command
from desktop_app.mcp.http import DEFAULT_PORT, HOST, PATH, read_token
from desktop_app.ui.safe_document import make_plain


def http_listening(port: int = DEFAULT_PORT) -> bool:
    """Whether something accepts connections on the loopback port `trove mcp --http` uses (loopback answers or
    refuses at once, so this never holds the UI thread)."""
    try:
        with socket.create_connection((HOST, port), timeout=0.2):
            return True
    except OSError:
        return False


class AiAppsDialog(QDialog):
    """The snippet for one AI app, a Copy button, the HTTP server's state and its token. No signals."""

    def __init__(self, home: Path | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("AI apps")
        self.home = home
        self.command = trove_command()
        self.client = QComboBox()
        self.client.addItems(list(CLIENTS))
        self.client.currentTextChanged.connect(self.on_client_changed)
        self.where = QLabel(wordWrap=True)
        self.snippet = QPlainTextEdit(readOnly=True)
        self.snippet.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.copy_button = QPushButton("Copy")
        self.copy_button.clicked.connect(self.on_copy_clicked)
        intro = QLabel("Your AI app starts Trove's MCP server itself (trove mcp) and can then search this library, "
                       "read passages and get quoted answers with their file and page. It sees only what its "
                       "tool calls return, and cannot change your folders or documents.", wordWrap=True)
        self.http_state = QLabel(wordWrap=True)
        self.token = QLineEdit(readOnly=True, placeholderText="hidden")
        self.token.setEchoMode(QLineEdit.EchoMode.Password)
        self.show_token_button = QPushButton("Show token")
        self.show_token_button.clicked.connect(self.on_show_token_clicked)
        self.show_token_button.setEnabled(home is not None)
        make_plain(self.where, intro, self.http_state)  # paths, never rendered as HTML
        token_row = QHBoxLayout()
        token_row.addWidget(self.token, 1)
        token_row.addWidget(self.show_token_button)
        form = QFormLayout()
        form.addRow("App", self.client)
        form.addRow("", self.where)
        form.addRow("Configuration", self.snippet)
        form.addRow("", self.copy_button)
        form.addRow("HTTP server", self.http_state)
        form.addRow("HTTP token", token_row)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.refresh_http_state()
        self.on_client_changed(self.client.currentText())

    def snippet_text(self) -> str:
        return snippet(self.client.currentText(), self.command, str(self.home) if self.home else None)

    def refresh_http_state(self) -> None:
        url = f"http://{HOST}:{DEFAULT_PORT}{PATH}"
        self.http_state.setText(f"on: {url} (clients send the token below)" if http_listening() else
                                f"off. `trove mcp --http` serves {url} on this computer only, with the token below.")

    def on_client_changed(self, client: str) -> None:
        self.where.setText(WHERE[client])
        self.snippet.setPlainText(self.snippet_text())

    def on_copy_clicked(self) -> None:
        QGuiApplication.clipboard().setText(self.snippet_text())

    def on_show_token_clicked(self) -> None:
        if self.home is not None:
            self.token.setText(read_token(self.home))  # made on first use, mode 0600
            self.token.setEchoMode(QLineEdit.EchoMode.Normal)
