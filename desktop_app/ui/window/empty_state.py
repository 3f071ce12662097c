"""What a new library shows: a large drop target that says what to do."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QPainter, QPalette, QPen, QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_app.resources import icon_path


class EmptyState(QWidget):
    """“Drop a folder here”, with buttons for people who would rather click.

    Signals:
        add_folder_clicked(): the user wants to pick a folder.
        sample_clicked(): the user wants to try the bundled sample documents.
    """

    add_folder_clicked = Signal()
    sample_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("emptyState")
        icon = QLabel()
        pixmap = QPixmap(str(icon_path()))
        if not pixmap.isNull():
            icon.setPixmap(pixmap.scaledToWidth(96, Qt.TransformationMode.SmoothTransformation))
        icon.setAlignment(Qt.AlignmentFlag.AlignCenter)
        title = QLabel("Drop a folder here")
        title.setObjectName("emptyTitle")
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.8)
        font.setBold(True)
        title.setFont(font)
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        body = QLabel("Trove indexes the documents in your folders — text, Markdown, HTML, code, PDF and Word —\n"
                      "so you can search them as you type and ask questions answered from them.\n"
                      "Everything stays on this computer.")
        body.setAlignment(Qt.AlignmentFlag.AlignCenter)
        body.setWordWrap(True)
        self.add_button = QPushButton("Add folder…")
        self.add_button.setDefault(True)
        self.add_button.clicked.connect(self.add_folder_clicked.emit)
        self.sample_button = QPushButton("Try the sample documents")
        self.sample_button.clicked.connect(self.sample_clicked.emit)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.sample_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addStretch(2)
        layout.addWidget(icon)
        layout.addSpacing(12)
        layout.addWidget(title)
        layout.addWidget(body)
        layout.addSpacing(16)
        layout.addLayout(buttons)
        layout.addStretch(3)

    def paintEvent(self, event) -> None:
        """A dashed drop zone, drawn in the palette's mid colour so it suits light and dark themes."""
        super().paintEvent(event)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(self.palette().color(QPalette.ColorRole.Mid), 2, Qt.PenStyle.DashLine)
        painter.setPen(pen)
        margin = 24
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(margin, margin, -margin, -margin), 18, 18)
        painter.end()
