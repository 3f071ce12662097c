"""Small badges for document types (PDF, MD, TXT …) and for memory (FACT, CHAT), drawn once with QPainter and cached.

Badges carry their own background, so their fixed colours read the same in light and dark palettes; each one is
dark enough for its white label to stay readable (WCAG 4.5:1, tests/gui/test_theme.py).
"""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QIcon, QPainter, QPixmap

from desktop_app.core.ingest.filetypes import FormatRegistry

# Badge and name come from the format's registration (core/ingest/filetypes.py); only the colours are the UI's.
TYPE_LABELS = {f.kind: f.badge for f in FormatRegistry.all()}
TYPE_NAMES = {f.kind: f.name for f in FormatRegistry.all()}
# Families share a hue (documents blue, slides orange, sheets green), so a list of results reads at a glance.
TYPE_COLOURS = {"pdf": "#c0392b", "markdown": "#2c7a7b", "text": "#5a6270", "code": "#6b46c1", "html": "#c05621",
                "docx": "#2b6cb0", "odt": "#2c5282", "rtf": "#4a5568", "epub": "#97266d", "pptx": "#c2410c",
                "odp": "#b45309", "xlsx": "#2f855a", "ods": "#276749", "csv": "#287d4b", "email": "#2c6aa8",
                "notebook": "#a16207", "image": "#805ad5"}
# Memory results (a fact, a past chat's excerpt) are no file: a badge of their own, one hue for both.
MEMORY_LABELS = {"fact": "FACT", "history": "CHAT"}
MEMORY_COLOURS = {"fact": "#b83280", "history": "#9d3c8c"}
UNKNOWN_COLOUR = "#5f6b7a"
LABEL_COLOUR = "#ffffff"


def result_icon(metadata: dict, size: int = 32) -> QIcon:
    """The badge of a search result: its memory kind's (a fact, a past chat), else its document type's."""
    kind = (metadata.get("memory") or {}).get("kind")
    if kind in MEMORY_LABELS:
        return badge_icon(MEMORY_LABELS[kind], MEMORY_COLOURS[kind], size)
    return type_icon(str(metadata.get("type", "")), size)


def type_icon(doc_type: str, size: int = 32) -> QIcon:
    """A rounded badge with the type's short label ("?" on grey for a type Trove does not know)."""
    return badge_icon(TYPE_LABELS.get(doc_type, "?"), TYPE_COLOURS.get(doc_type, UNKNOWN_COLOUR), size)


def badge_icon(label: str, colour: str, size: int = 32) -> QIcon:
    """A rounded badge of `colour` with `label` in white, sharp at the screen's scale (200 %: drawn at 64 pixels)."""
    app = QGuiApplication.instance()
    ratio = app.devicePixelRatio() if isinstance(app, QGuiApplication) else 1.0
    return _badge(label, colour, size, ratio)


@cache
def _badge(label: str, colour: str, size: int, ratio: float) -> QIcon:
    pixmap = QPixmap(round(size * ratio), round(size * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(colour))
    painter.drawRoundedRect(QRectF(1, 3, size - 2, size - 6), size / 6, size / 6)
    font = QFont()
    font.setBold(True)
    font.setPixelSize(max(7, int(size * (0.36 if len(label) <= 3 else 0.28))))
    painter.setFont(font)
    painter.setPen(QColor(LABEL_COLOUR))
    painter.drawText(QRectF(0, 0, size, size), Qt.AlignmentFlag.AlignCenter, label)
    painter.end()
    return QIcon(pixmap)
