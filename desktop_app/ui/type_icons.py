"""Small badges for document types (PDF, MD, TXT …), drawn once with QPainter and cached.

Badges carry their own background, so their fixed colours read the same in light and dark palettes.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap

from desktop_app.core.ingest.filetypes import FormatRegistry

# Badge and name come from the format's registration (core/ingest/filetypes.py); only the colours are the UI's.
TYPE_LABELS = {f.kind: f.badge for f in FormatRegistry.all()}
TYPE_NAMES = {f.kind: f.name for f in FormatRegistry.all()}
# Families share a hue (documents blue, slides orange, sheets green), so a list of results reads at a glance.
_COLOURS = {"pdf": "#c0392b", "markdown": "#2c7a7b", "text": "#5a6270", "code": "#6b46c1", "html": "#c05621",
            "docx": "#2b6cb0", "odt": "#2c5282", "rtf": "#4a5568", "epub": "#97266d", "pptx": "#dd6b20",
            "odp": "#b7791f", "xlsx": "#2f855a", "ods": "#276749", "csv": "#38a169", "email": "#3182ce",
            "notebook": "#d69e2e", "image": "#805ad5"}


@cache
def type_icon(doc_type: str, size: int = 32) -> QIcon:
    """A rounded badge with the type's short label."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(_COLOURS.get(doc_type, "#718096")))
    painter.drawRoundedRect(QRectF(1, 3, size - 2, size - 6), size / 6, size / 6)
    label = TYPE_LABELS.get(doc_type, "?")
    font = QFont()
    font.setBold(True)
    font.setPixelSize(max(7, int(size * (0.36 if len(label) <= 3 else 0.28))))
    painter.setFont(font)
    painter.setPen(QColor("white"))
    painter.drawText(QRectF(0, 0, size, size), Qt.AlignmentFlag.AlignCenter, label)
    painter.end()
    return QIcon(pixmap)
