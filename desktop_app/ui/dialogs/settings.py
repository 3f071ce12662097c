"""The settings dialog: the library's engine (a server URL, with "Test connection", or "Join with an invite"),
chat model and runtime, chunking (offers a re-index), retrieval, exclusions."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.errors import KnownError
from desktop_app.core.library_tools import join_invite, probe_server, redact_url
from desktop_app.core.settings import Settings
from desktop_app.ui.dialogs.settings_ai_apps import AiAppsDialog
from desktop_app.ui.safe_document import make_plain
from desktop_app.ui.tasks import Lane, TaskRunner

CHUNKING_FIELDS = ("chunk_size", "chunk_overlap")
# The semantic model: what each choice is for (core/embed/auto.py chooses for "auto").
EMBEDDER_CHOICES = (
    ("auto", "Automatic: by the languages of your documents"),
    ("minilm", "English (MiniLM)"),
    ("use-multilingual", "16 languages, incl. Thai, Chinese, Japanese, Korean, Arabic (USE multilingual)"),
    ("e5-small", "About 100 languages (multilingual-e5-small)"),
)


def _spin(lo: int, hi: int, value: int, step: int = 1, suffix: str = "") -> QSpinBox:
    box = QSpinBox(minimum=lo, maximum=hi, singleStep=step, suffix=suffix)
    box.setValue(value)
    return box


def _dspin(lo: float, hi: float, value: float, step: float = 0.05) -> QDoubleSpinBox:
    box = QDoubleSpinBox(minimum=lo, maximum=hi, singleStep=step, decimals=2)
    box.setValue(value)
    return box


class SettingsDialog(QDialog):
    """Edits a Settings value. `changes()` returns only what the user changed; the window applies it.

    Signals: probed(bool, str): a connection test finished (ok, what it found); joined(bool, str, str): joining
    with an invite finished (ok, what happened, the library URL), both emitted on the UI thread.
    `home`: the library folder a join keeps its credentials in (HOME/team/, readable only by the user). `tasks`: the
    window's TaskRunner, which runs the test and the join (the dialog makes its own without one).
    """

    probed = Signal(bool, str)
    joined = Signal(bool, str, str)

    def __init__(self, settings: Settings, parent: QWidget | None = None, *, home: Path | None = None,
                 tasks: TaskRunner | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Trove settings")
        self.original = settings
        self.home = home
        self.tasks = tasks or TaskRunner(self)
        forms = (("Library", self._engine_form(settings)), ("Chat model", self._chat_form(settings)),
                 ("Indexing", self._index_form(settings)), ("Search and answers", self._search_form(settings)))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for title, form in forms:
            box = QGroupBox(title)
            box.setLayout(form)
            layout.addWidget(box)
        self.ai_apps_button = QPushButton("AI apps…")  # Claude, Cursor, VS Code: the MCP snippet and token
        self.ai_apps_button.clicked.connect(lambda: AiAppsDialog(self.home, self).exec())
        layout.addWidget(self.ai_apps_button)
        layout.addWidget(buttons)

    def _engine_form(self, s: Settings) -> QFormLayout:
        """The library's engine: a server URL with Test connection, or an invite to join."""
        self.server_url = QLineEdit(s.server_url, placeholderText="empty: the library on this computer (SQLite)")
        self.server_url.setToolTip("A postgresql:// URL of a team library server (`trove join` stores one; "
                                   "its password stays in a file only you can read).")
        self.server_url.textChanged.connect(self._mask_password)
        self._mask_password(s.server_url)
        self.test_button = QPushButton("Test connection")
        self.test_button.clicked.connect(self.on_test_clicked)
        self.probe_result = QLabel("Takes effect the next time Trove starts.", wordWrap=True)
        make_plain(self.probe_result)  # server URLs and error text, never rendered as HTML
        self.probed.connect(self.on_probed)
        server_row = QHBoxLayout()
        server_row.addWidget(self.server_url, 1)
        server_row.addWidget(self.test_button)
        self.invite = QLineEdit(placeholderText="trove1:… (from `trove server invite NAME` on the server)")
        self.invite.setEchoMode(QLineEdit.EchoMode.Password)  # it holds a one-time credential
        self.join_button = QPushButton("Join")
        self.join_button.clicked.connect(self.on_join_clicked)
        self.joined.connect(self.on_joined)
        join_row = QHBoxLayout()
        join_row.addWidget(self.invite, 1)
        join_row.addWidget(self.join_button)
        engine = QFormLayout()
        engine.addRow("Library server", server_row)
        engine.addRow("Join with an invite", join_row)
        engine.addRow("", self.probe_result)
        return engine

    def _chat_form(self, s: Settings) -> QFormLayout:
        """The model file, its context size and threads."""
        self.model_path = QLineEdit(s.model_path, placeholderText="the bundled SmolLM2-135M-Instruct")
        browse = QPushButton("Choose…")
        browse.clicked.connect(self.on_browse_clicked)
        model_row = QHBoxLayout()
        model_row.addWidget(self.model_path, 1)
        model_row.addWidget(browse)
        self.n_ctx = _spin(512, 131072, s.n_ctx, 512, " tokens")
        self.n_threads = _spin(0, 256, s.n_threads)
        self.n_threads.setSpecialValueText("automatic")
        chat = QFormLayout()
        chat.addRow("Model file (GGUF)", model_row)
        chat.addRow("Context size", self.n_ctx)
        chat.addRow("Threads", self.n_threads)
        return chat

    def _index_form(self, s: Settings) -> QFormLayout:
        """The semantic model, chunking and exclusions."""
        self.chunk_size = _spin(32, 8192, s.chunk_size, 32, " words")
        self.chunk_overlap = _spin(0, 4096, s.chunk_overlap, 8, " words")
        self.excluded = QPlainTextEdit("\n".join(s.excluded_patterns))
        self.excluded.setPlaceholderText("one pattern per line, e.g. node_modules or *.log")
        self.excluded.setMaximumHeight(110)
        self.embedder = QComboBox()
        self.embedder.setToolTip("Changing the model recomputes the library's vectors in the background")
        for value, label in EMBEDDER_CHOICES:
            self.embedder.addItem(label, value)
        if self.embedder.findData(s.embedder) < 0:  # a setting made elsewhere (e.g. minilm-torch): keep it
            self.embedder.addItem(s.embedder, s.embedder)
        self.embedder.setCurrentIndex(self.embedder.findData(s.embedder))
        index = QFormLayout()
        index.addRow("Semantic model", self.embedder)
        index.addRow("Chunk size", self.chunk_size)
        index.addRow("Chunk overlap", self.chunk_overlap)
        index.addRow("Excluded patterns", self.excluded)
        return index

    def _search_form(self, s: Settings) -> QFormLayout:
        """Result counts, the passage floor and the hybrid weights."""
        self.top_k = _spin(1, 100, s.top_k)
        self.context_top_k = _spin(1, 50, s.context_top_k)
        self.min_score = _dspin(0.0, 1.0, s.context_min_score, 0.01)
        self.keyword_weight = _dspin(0.0, 10.0, s.keyword_weight)
        self.semantic_weight = _dspin(0.0, 10.0, s.semantic_weight)
        search = QFormLayout()
        search.addRow("Search results (top-k)", self.top_k)
        search.addRow("Passages per answer", self.context_top_k)
        search.addRow("Minimum passage score", self.min_score)
        search.addRow("Keyword weight", self.keyword_weight)
        search.addRow("Semantic weight", self.semantic_weight)
        return search

    def values(self) -> dict:
        """Every editable setting as the dialog shows it."""
        patterns = tuple(p.strip() for p in self.excluded.toPlainText().splitlines() if p.strip())
        return {"server_url": self.server_url.text().strip(),
                "model_path": self.model_path.text().strip(), "n_ctx": self.n_ctx.value(),
                "n_threads": self.n_threads.value(), "chunk_size": self.chunk_size.value(),
                "chunk_overlap": min(self.chunk_overlap.value(), self.chunk_size.value() - 1),
                "excluded_patterns": patterns, "top_k": self.top_k.value(),
                "context_top_k": self.context_top_k.value(), "context_min_score": round(self.min_score.value(), 4),
                "keyword_weight": self.keyword_weight.value(), "semantic_weight": self.semantic_weight.value(),
                "embedder": self.embedder.currentData()}

    def changes(self) -> dict:
        """Only the settings that differ from the ones the dialog opened with."""
        known = {f.name for f in fields(Settings)}
        return {k: v for k, v in self.values().items() if k in known and getattr(self.original, k) != v}

    @staticmethod
    def needs_reindex(changes: dict) -> bool:
        """Chunking or exclusions changed: existing chunks no longer match the settings."""
        return any(k in changes for k in (*CHUNKING_FIELDS, "excluded_patterns"))

    def on_browse_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose a GGUF model", self.model_path.text(),
                                              "GGUF models (*.gguf);;All files (*)")
        if path:
            self.model_path.setText(path)

    def on_test_clicked(self) -> None:
        """Try the URL on the network lane (a dead server takes seconds to time out); the answer comes to on_probed."""
        url = self.server_url.text().strip()
        if not url:
            self.on_probed(True, "The library is on this computer (SQLite): nothing to test.")
            return
        self.test_button.setEnabled(False)
        self.probe_result.setText("Connecting…")
        # a malformed URL or any other failure comes back as a message, not a dead button
        self.tasks.run(lambda: probe_server(url), lambda found: self.probed.emit(True, found),
                       lambda exc: self.probed.emit(False, failure_text(exc, "Cannot use this URL")),
                       lane=Lane.NETWORK)

    def _mask_password(self, url: str) -> None:
        """A URL with a password in it shows as dots except while it is being edited."""
        masked = redact_url(url) != url
        self.server_url.setEchoMode(QLineEdit.EchoMode.PasswordEchoOnEdit if masked else QLineEdit.EchoMode.Normal)

    def on_join_clicked(self) -> None:
        """Accept the invite on the network lane (it signs in to the server); the answer comes to on_joined."""
        text = self.invite.text().strip()
        if not text:
            self.on_joined(False, "Paste the invite you were given first.", "")
            return
        self.join_button.setEnabled(False)
        self.probe_result.setText("Joining…")
        home = self.home
        self.tasks.run(lambda: join_invite(home, text),
                       lambda done: self.joined.emit(True, f"Joined {done.database} on {done.host} as {done.person}.",
                                                     done.url),
                       lambda exc: self.joined.emit(False, failure_text(exc, "Cannot use this invite"), ""),
                       lane=Lane.NETWORK)

    def on_joined(self, ok: bool, message: str, url: str) -> None:
        """Show how joining went; on success the library server becomes the joined one (saved with OK)."""
        self.join_button.setEnabled(True)
        if ok:
            self.invite.clear()
            self.server_url.setText(url)
            message += " Press OK; it takes effect the next time Trove starts."
        self.probe_result.setText(("✓ " if ok else "✗ ") + message)

    def on_probed(self, ok: bool, message: str) -> None:
        """Show the connection test's answer (the URL's password never appears in it)."""
        self.test_button.setEnabled(True)
        self.probe_result.setText(("✓ " if ok else "✗ ") + message)


def failure_text(exc: BaseException, lead: str) -> str:
    """What a failed test or join says: a KnownError's own line; anything else (a malformed URL or invite, a bug) by
    its kind after `lead`, as a message beside the button rather than a crash report."""
    return str(exc) if isinstance(exc, KnownError) else f"{lead}: {type(exc).__name__}"
