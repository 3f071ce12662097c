"""Image files (a photo of a page, a scan saved as PNG/JPEG/TIFF/WebP) for the built-in viewer: one frame shown as a
page, upright as OCR read it, so the boxes of the words OCR read on it land on them.

A frame is one "page" (a multi-page TIFF has several). Its pixels count as points at RENDER_DPI, the resolution a
PDF page is read at, so a scale means about the same size for a scan saved as an image and one saved as a PDF.
Callers run this on a worker.
"""

from __future__ import annotations

import math

from desktop_app.core.errors import ExtractionError, KnownError
from desktop_app.core.ingest.page_images import MAX_RENDER_PIXELS, RENDER_DPI, load_image
from desktop_app.core.viewer_rows import PdfPage


def render_image_page(path: str, page: int, scale: float = 1.5, fit_width: float = 0.0) -> PdfPage:
    """Frame `page` (from 1; clamped to the file's frames) at `scale` pixels per point (`fit_width` > 0: the scale
    that makes it that many pixels wide), as BGRA rows, without boxes."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        count = _frames(data)
        number = min(max(page, 1), count)
        picture = load_image(data, number)
    except (OSError, ExtractionError) as exc:
        raise KnownError(f"Cannot open {path}: {exc}") from exc
    points = picture.width * 72 / RENDER_DPI
    if fit_width > 0:
        scale = fit_width / max(points, 1.0)
    width = max(1, round(points * scale))
    height = max(1, round(picture.height * width / picture.width))
    if width * height > MAX_RENDER_PIXELS:  # a zoomed-in poster: no more pixels than a page rendered for OCR
        shrink = math.sqrt(MAX_RENDER_PIXELS / (width * height))
        width, height, scale = max(1, int(width * shrink)), max(1, int(height * shrink)), scale * shrink
    shown = picture.resize((width, height)) if (width, height) != picture.size else picture
    pixels = shown.convert("RGBA").tobytes("raw", "BGRA")  # what QImage ARGB32 reads on a little-endian machine
    return PdfPage(path, number, count, width, height, width * 4, pixels, scale)


def _frames(data: bytes) -> int:
    """How many frames (pages) the image holds; 1 when Pillow cannot say."""
    import io

    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            return max(int(getattr(image, "n_frames", 1) or 1), 1)
    except (UnidentifiedImageError, OSError, ValueError, EOFError, SyntaxError, Image.DecompressionBombError):
        return 1
