"""The Models dialog: your chat models (set as default, remove, add a file) and downloads (catalog or URL) with a
progress bar and Cancel. Every library call runs on the task runner; a download runs on its own lane."""

from __future__ import annotations

import threading

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.chat.models.download import DownloadCancelled, DownloadProgress
from desktop_app.core.pathnames import display_path
from desktop_app.ui.dialogs.model_tables import COLUMNS, catalog_row, fill_table, make_table, model_row
from desktop_app.ui.safe_document import make_plain, plain_tooltip
from desktop_app.ui.units import format_bytes
from desktop_app.ui.window.changes import ChangeKind


class ModelsDialog(QDialog):
    """Lists the person's models and downloads new ones. Non-modal: a download goes on while it is closed.

    Signals:
        default_changed(): another model became the chat model (or the default was removed).
        download_finished(object): a download completed (the new ModelEntry).
        download_failed(str): a download failed or was cancelled (the one-line reason).
        listed(list): the model list was (re)loaded (ModelEntry list).
    """

    default_changed = Signal()
    download_finished = Signal(object)
    download_failed = Signal(str)
    listed = Signal(list)

    def __init__(self, manager, tasks, *, n_ctx: int = 4096, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Chat models")
        self.setObjectName("modelsDialog")
        self.resize(980, 680)
        self.manager, self.tasks, self.n_ctx = manager, tasks, n_ctx
        self.entries: list = []
        self.cancel_event: threading.Event | None = None
        self.downloading_label = ""
        self.catalog = manager.catalog
        self.recommended = manager.recommended(n_ctx)
        self.proposed = manager.proposed_local()  # a local install that fits this machine (no download), or None
        layout = QVBoxLayout(self)
        layout.addWidget(self._build_models_box(), 2)
        layout.addWidget(self._build_download_box(), 5)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.hide)
        layout.addWidget(close)
        if parent is not None:
            parent.installEventFilter(self)  # the window closing cancels a download (its thread would hold the exit)
        self.refresh()

    # ---- building ----------------------------------------------------------------------------------

    def _build_models_box(self) -> QGroupBox:
        self.models_table = make_table(COLUMNS)
        self.models_table.itemSelectionChanged.connect(self.on_model_selection_changed)
        self.models_table.doubleClicked.connect(lambda _index: self.on_use_clicked())
        self.use_button = QPushButton("Set as default")
        self.check_button = QPushButton("Check quotes with it")
        self.check_button.setToolTip(plain_tooltip(
            "Before a quote is shown, this model reads it and the question and says whether it answers. A quote it "
            "says does not answer is refused. Slower (about 2 s a question with Qwen2.5-Coder 1.5B on 2 cores)."))
        self.remove_button = QPushButton("Remove")
        self.add_button = QPushButton("Add file…")
        self.use_button.clicked.connect(self.on_use_clicked)
        self.check_button.clicked.connect(self.on_check_clicked)
        self.remove_button.clicked.connect(self.on_remove_clicked)
        self.add_button.clicked.connect(self.on_add_clicked)
        buttons = QHBoxLayout()
        for button in (self.use_button, self.check_button, self.remove_button):
            button.setEnabled(False)
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.add_button)
        box = QGroupBox("Your models")
        inner = QVBoxLayout(box)
        inner.addWidget(self.models_table)
        inner.addLayout(buttons)
        inner.addLayout(self._build_proposal_row())
        return box

    def _build_proposal_row(self) -> QHBoxLayout:
        """The local model proposed for this machine's memory, installed from packages already here (no download)."""
        self.proposal_label = QLabel("")
        self.proposal_label.setWordWrap(True)
        make_plain(self.proposal_label)
        self.install_button = QPushButton("Install")
        self.install_button.clicked.connect(self.on_install_clicked)
        row = QHBoxLayout()
        row.addWidget(self.proposal_label, 1)
        row.addWidget(self.install_button)
        self._show_proposal(installed=False)
        return row

    def _show_proposal(self, *, installed: bool) -> None:
        model = self.proposed
        self.proposal_label.setVisible(model is not None)
        self.install_button.setVisible(model is not None and not installed)
        if model is not None:
            need = format_bytes(model.measured_ram_bytes)
            self.proposal_label.setText(
                f"{model.name} is installed: choose it above to chat with it." if installed else
                f"Proposed for this computer, without a download: {model.name} (needs about {need} of memory; "
                "assembled from packages already on this computer and checked against its SHA-256).")

    def _build_download_box(self) -> QGroupBox:
        memory = format_bytes(self.manager.memory_bytes) if self.manager.memory_bytes else "unknown"
        pick = f" ★ marks the largest that fits comfortably: {self.recommended.name}." if self.recommended else ""
        intro = QLabel(f"This computer has {memory} of memory.{pick} Downloads happen only when you ask, "
                       "and are checked against their published SHA-256.")
        intro.setWordWrap(True)
        self.catalog_table = make_table(COLUMNS)
        rows = [catalog_row(e, e is self.recommended, self.n_ctx) for e in self.catalog]
        tips = [plain_tooltip(f"{e.url}\nsource of size and hash: {e.source}") for e in self.catalog]
        fill_table(self.catalog_table, rows, self.catalog.index(self.recommended) if self.recommended else -1, tips)
        self.catalog_table.itemSelectionChanged.connect(self.on_catalog_selection_changed)
        self.catalog_button = QPushButton("Download selected")
        self.catalog_button.setEnabled(False)
        self.catalog_button.clicked.connect(self.on_catalog_download_clicked)
        self.url_edit = QLineEdit(placeholderText="or paste a GGUF link: https://huggingface.co/…/model.gguf")
        self.url_edit.returnPressed.connect(self.on_url_download_clicked)
        self.url_button = QPushButton("Download link")
        self.url_button.clicked.connect(self.on_url_download_clicked)
        url_row = QHBoxLayout()
        url_row.addWidget(self.catalog_button)
        url_row.addWidget(self.url_edit, 1)
        url_row.addWidget(self.url_button)
        self.progress = QProgressBar(textVisible=True)
        self.progress.setRange(0, 1000)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        make_plain(intro, self.status)  # they show file names, URLs and error messages: text, never HTML
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.on_cancel_clicked)
        progress_row = QHBoxLayout()
        progress_row.addWidget(self.progress, 1)
        progress_row.addWidget(self.cancel_button)
        self._show_progress(False)
        box = QGroupBox("Get a model")
        inner = QVBoxLayout(box)
        for widget in (intro, self.catalog_table):
            inner.addWidget(widget)
        inner.addLayout(url_row)
        inner.addLayout(progress_row)
        inner.addWidget(self.status)
        return box

    # ---- the list ----------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Reload the model list off the UI thread (reading GGUF headers takes a moment)."""
        self.tasks.run(self.manager.entries, self.on_listed, self.on_action_failed)

    def on_listed(self, entries: list) -> None:
        selected = self.selected_model()
        self.entries = entries
        default_row = next((i for i, e in enumerate(entries) if e.is_default), -1)
        tips = [plain_tooltip(display_path(e.path) + (f"\n{e.url}" if e.url else "") + ("" if e.has_chat_template else
                "\nno chat template: a base model, it may not answer questions well")) for e in entries]
        fill_table(self.models_table, [model_row(e) for e in entries], default_row, tips)
        self._show_proposal(installed=self.proposed is not None
                            and any(e.catalog_id == self.proposed.id for e in entries))
        names = [e.name for e in entries]
        if selected is not None and selected.name in names:
            self.models_table.selectRow(names.index(selected.name))
        self.on_model_selection_changed()
        self.listed.emit(entries)

    def selected_model(self):
        """The ModelEntry of the selected row, or None."""
        rows = self.models_table.selectionModel().selectedRows()
        return self.entries[rows[0].row()] if rows and rows[0].row() < len(self.entries) else None

    def on_model_selection_changed(self) -> None:
        entry = self.selected_model()
        self.use_button.setEnabled(entry is not None and not entry.is_default and not entry.problem)
        self.check_button.setText("Stop checking quotes" if entry is not None and entry.checks_quotes
                                  else "Check quotes with it")
        self.check_button.setEnabled(entry is not None and entry.origin != "bundled"
                                     and (entry.checks_quotes or not entry.problem))
        self.remove_button.setEnabled(entry is not None and entry.origin != "bundled")

    def on_use_clicked(self) -> None:
        entry = self.selected_model()
        if entry is not None and not entry.is_default:
            self._change(lambda: self.manager.use(entry.name), f"Chat now uses {entry.name}.")

    def on_check_clicked(self) -> None:
        """Have the selected model check each quote before it is shown, or stop it checking."""
        entry = self.selected_model()
        if entry is None:
            return
        if entry.checks_quotes:
            self._change(lambda: self.manager.check_with(None), "Quotes are shown unchecked.", default_changes=False)
        else:
            self._change(lambda: self.manager.check_with(entry.name),
                         f"{entry.name} now checks each quote before it is shown.", default_changes=False)

    def on_remove_clicked(self) -> None:
        entry = self.selected_model()
        if entry is not None:
            what = "Deleted" if entry.origin == "downloaded" else "Forgot (the file stays on disk)"
            self._change(lambda: self.manager.remove(entry.name), f"{what}: {entry.name}.")

    def on_add_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Add a GGUF model", "", "GGUF models (*.gguf);;All files (*)")
        if path:
            self.add_file(path)

    def add_file(self, path: str) -> None:
        """Add a GGUF file from disk (what Add file… does once a file is chosen)."""
        self._change(lambda: self.manager.add(path), f"Added {path}.", default_changes=False)

    def on_install_clicked(self) -> None:
        model = self.proposed
        if model is not None:
            self.install_button.setEnabled(False)
            self.status.setText(f"Installing {model.name} (checking its size, SHA-256 and header)…")
            self._change(lambda: self.manager.install(model.id), f"Installed {model.name}.", default_changes=False)

    def _change(self, action, message: str, *, default_changes: bool = True) -> None:
        def done(_result) -> None:
            self.status.setText(message)
            self.refresh()
            if default_changes:
                self.default_changed.emit()
        self.tasks.run(action, done, self.on_action_failed)

    def on_action_failed(self, exc: BaseException) -> None:
        self.status.setText(str(exc))
        self.install_button.setEnabled(True)

    # ---- downloads -----------------------------------------------------------------------------------

    def on_catalog_selection_changed(self) -> None:
        self.catalog_button.setEnabled(bool(self.catalog_table.selectionModel().selectedRows())
                                       and self.cancel_event is None)

    def on_catalog_download_clicked(self) -> None:
        rows = self.catalog_table.selectionModel().selectedRows()
        if rows:
            self.start_download(self.catalog[rows[0].row()].id)

    def on_url_download_clicked(self) -> None:
        if self.url_edit.text().strip():
            self.start_download(self.url_edit.text().strip())

    def start_download(self, source: str) -> None:
        """Download a catalog id or URL on the download lane; its progress comes back as on_download_progress."""
        if self.cancel_event is not None:
            return
        cancel = self.cancel_event = threading.Event()
        manager = self.manager
        resumed = manager.partial_download(source)
        self._show_progress(True)
        self.progress.setValue(0)
        self.progress.setFormat("%p%")
        self.downloading_label = source if "/" not in source else source.rsplit("/", 1)[-1]
        self.status.setText(f"Resuming {self.downloading_label} from {format_bytes(resumed)}…" if resumed
                            else f"Connecting to download {self.downloading_label}…")
        self.tasks.run(lambda report: manager.download(source, progress=report, cancel=cancel),
                       self.on_download_done, self.on_download_error, lane="download",
                       on_progress=self.on_download_progress)

    def on_download_progress(self, p: DownloadProgress) -> None:
        if self.cancel_event is None:
            return
        if p.total:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * p.fraction))
            self.progress.setFormat(f"{format_bytes(p.done)} of {format_bytes(p.total)} (%p%)")
        else:
            self.progress.setRange(0, 0)  # busy indicator: the server did not say how big the file is
        self.status.setText(f"Downloading {self.downloading_label}…")

    def on_download_done(self, entry) -> None:
        self.cancel_event = None
        self._show_progress(False)
        check = "SHA-256 verified" if entry.verified else "no published SHA-256 to check against"
        self.status.setText(f"Downloaded {entry.name} ({format_bytes(entry.size_bytes)}, {check}). "
                            "Select it and choose Set as default to chat with it.")
        self.url_edit.clear()
        self.refresh()
        self.download_finished.emit(entry)

    def on_download_error(self, exc: BaseException) -> None:
        self.cancel_event = None
        self._show_progress(False)
        message = str(exc) if not isinstance(exc, DownloadCancelled) else f"{exc} Download it again to resume."
        self.status.setText(message)
        self.download_failed.emit(message)

    def on_cancel_clicked(self) -> None:
        if self.cancel_event is not None:
            self.cancel_event.set()
            self.status.setText("Stopping…")

    def downloading(self) -> bool:
        """Whether a download is running."""
        return self.cancel_event is not None

    def _show_progress(self, running: bool) -> None:
        self.progress.setVisible(running)
        self.cancel_button.setVisible(running)
        for widget in (self.url_button, self.url_edit):
            widget.setEnabled(not running)
        self.catalog_button.setEnabled(not running and bool(self.catalog_table.selectionModel().selectedRows()))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Close and watched is self.parent():
            self.on_cancel_clicked()
        return False


def open_models_dialog(window) -> ModelsDialog:
    """Show the window's Models dialog (created once, kept so a download survives closing it)."""
    dialog = getattr(window, "models_dialog", None)
    if dialog is None:
        dialog = ModelsDialog(window.library.models, window.tasks,
                              n_ctx=window.library.settings.n_ctx, parent=window)
        dialog.default_changed.connect(lambda: window.events.announce(ChangeKind.SETTINGS))
        window.models_dialog = dialog
    else:
        dialog.refresh()
    if dialog.isVisible():
        dialog.raise_()  # open behind the window: bring it forward
    else:
        dialog.show()  # a newly shown dialog is on top already
    return dialog
