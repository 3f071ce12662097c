"""The chat pane's header: the model questions will use (its name and size; its file as the tooltip), Model… to
use another GGUF file, and New chat."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QPushButton, QWidget

from desktop_app.ui.safe_document import make_plain, plain_tooltip
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.units import format_bytes


class ChatHeader(QWidget):
    """Shows the library's chat model and saves another one the person picks; New chat is the pane's to connect.

    Signals:
        model_shown(object): the model's info was read (its ModelInfo), or None when there is no usable model.
        model_changed(str): the person picked another model file, and it was saved in the settings (path).
        failed(str): saving the model choice raised (message).
    """

    model_shown = Signal(object)
    model_changed = Signal(str)
    failed = Signal(str)

    def __init__(self, library, tasks: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.tasks = tasks
        self.model_label = QLabel("Model: …")
        self.model_label.setObjectName("modelLabel")
        make_plain(self.model_label)  # it shows a GGUF file's model name
        self.model_button = QPushButton("Model…")
        self.model_button.setToolTip("Use another GGUF model file")
        self.model_button.clicked.connect(self.on_model_button_clicked)
        self.new_button = QPushButton("New chat")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.model_label, 1)
        row.addWidget(self.model_button)
        row.addWidget(self.new_button)

    def refresh(self) -> None:
        """Read the model questions will use (off the UI thread: it may open the GGUF file's header)."""
        self.tasks.run(self.library.chat.model_info, self.on_model_info, self.on_model_info_error)

    def on_model_info(self, info) -> None:
        size = f" · {format_bytes(info.size_bytes)}" if info.size_bytes else ""
        self.model_label.setText(f"Model: {info.name}{size}")
        self.model_label.setToolTip(plain_tooltip(info.path, path=True))
        self.model_shown.emit(info)

    def on_model_info_error(self, exc: BaseException) -> None:
        self.model_label.setText("Model: none")
        self.model_label.setToolTip(plain_tooltip(str(exc)))
        self.model_shown.emit(None)

    def set_model_path(self, path: str) -> None:
        """Use another GGUF file (saved in the library's settings); the next question loads it."""
        library = self.library
        self.tasks.run(lambda: library.update_settings(model_path=path), lambda _s: self.on_model_saved(path),
                       lambda exc: self.failed.emit(str(exc)))

    def on_model_saved(self, path: str) -> None:
        self.refresh()
        self.model_changed.emit(path)

    def on_model_button_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose a GGUF model", "", "GGUF models (*.gguf);;All files (*)")
        if path:
            self.set_model_path(path)
