"""A list of notices (errors, offline folders, semantic indexing failures) the user can read and clear."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QListWidget,
    QListWidgetItem,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.events import Notice
from desktop_app.ui.safe_document import plain_tooltip

_ICONS = {"error": QStyle.StandardPixmap.SP_MessageBoxCritical, "warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
          "info": QStyle.StandardPixmap.SP_MessageBoxInformation}
MAX_NOTICES = 500


class NoticesView(QDialog):
    """Notices, newest first. Non-modal: it can stay open while the library works.

    Signals:
        cleared(): the user cleared the list.
    """

    cleared = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Trove notices")
        self.resize(560, 320)
        self.list = QListWidget()
        self.list.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        clear = buttons.addButton("Clear", QDialogButtonBox.ButtonRole.ResetRole)
        clear.clicked.connect(self.on_clear_clicked)
        self.copy_details = buttons.addButton("Copy details", QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_details.setEnabled(False)  # only a notice with details (a crash report) has some to copy
        self.copy_details.clicked.connect(self.on_copy_details_clicked)
        self.list.currentItemChanged.connect(self.on_current_item_changed)
        buttons.rejected.connect(self.hide)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list)
        layout.addWidget(buttons)

    def add(self, notice: Notice) -> None:
        stamp = time.strftime("%H:%M:%S", time.localtime(notice.at))
        item = QListWidgetItem(self.style().standardIcon(_ICONS.get(notice.level, _ICONS["info"])),
                               f"{stamp}  {notice.message}")
        item.setData(Qt.ItemDataRole.UserRole, notice)
        item.setToolTip(plain_tooltip(notice.path, path=True) if notice.path else plain_tooltip(notice.message))
        self.list.insertItem(0, item)
        if notice.details:
            self.list.setCurrentItem(item)  # "Copy details" is one click away
        while self.list.count() > MAX_NOTICES:
            self.list.takeItem(self.list.count() - 1)

    def notices(self) -> list[Notice]:
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]

    def on_current_item_changed(self, current: QListWidgetItem | None, _previous) -> None:
        notice = current.data(Qt.ItemDataRole.UserRole) if current is not None else None
        self.copy_details.setEnabled(bool(notice is not None and notice.details))

    def on_copy_details_clicked(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            QApplication.clipboard().setText(item.data(Qt.ItemDataRole.UserRole).details)

    def on_clear_clicked(self) -> None:
        self.list.clear()
        self.cleared.emit()
