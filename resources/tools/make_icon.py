"""Draw the Trove app icon with QPainter: a page with text lines under a magnifying glass, on a teal tile.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python resources/tools/make_icon.py
Writes resources/icons/trove.png (256 px) and trove-48.png.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QImage, QPainter, QPainterPath, QPen

TILE, PAGE, INK, GLASS, RIM = "#1f6f8b", "#fdfcf7", "#9bb3bd", "#f2b632", "#c98a0a"


def draw(size: int) -> QImage:
    img = QImage(size, size, QImage.Format.Format_ARGB32)
    img.fill(Qt.GlobalColor.transparent)
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.scale(size / 256, size / 256)  # draw in a 256-unit box, whatever the output size
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QColor(TILE))
    p.drawRoundedRect(QRectF(8, 8, 240, 240), 48, 48)
    # the page, with a folded corner
    page = QPainterPath()
    page.moveTo(60, 40)
    page.lineTo(160, 40)
    page.lineTo(196, 76)
    page.lineTo(196, 214)
    page.lineTo(60, 214)
    page.closeSubpath()
    p.setBrush(QColor(PAGE))
    p.drawPath(page)
    fold = QPainterPath()
    fold.moveTo(160, 40)
    fold.lineTo(160, 76)
    fold.lineTo(196, 76)
    fold.closeSubpath()
    p.setBrush(QColor(INK))
    p.drawPath(fold)
    for i, width in enumerate((96, 112, 80, 104, 60)):
        p.drawRoundedRect(QRectF(78, 96 + i * 22, width, 9), 4, 4)
    # the magnifying glass
    p.setPen(QPen(QColor(RIM), 22, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    p.drawLine(QPointF(176, 176), QPointF(218, 218))
    p.setPen(QPen(QColor(GLASS), 14))
    p.setBrush(QBrush(QColor(255, 255, 255, 90)))
    p.drawEllipse(QPointF(148, 148), 40, 40)
    p.end()
    return img


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv)
    out = Path(__file__).resolve().parents[1] / "icons"
    out.mkdir(parents=True, exist_ok=True)
    for size, name in ((256, "trove.png"), (48, "trove-48.png")):
        if not draw(size).save(str(out / name)):
            print(f"could not write {out / name}", file=sys.stderr)
            return 1
    del app
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
