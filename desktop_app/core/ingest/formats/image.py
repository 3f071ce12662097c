"""Images (PNG, JPEG, TIFF, WebP): no text of their own; each frame is a page whose text only OCR can give."""

from __future__ import annotations

import io

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extract_rows import Extracted, PageBuilder

MAX_PIXELS = 60_000_000  # a 7,700 x 7,700 scan; bigger ones are refused before anything is decoded
MAX_FRAMES = 500


def extract_image(data: bytes, fallback_title: str) -> Extracted:
    """One page per frame (a multi-page TIFF is a scanned document), each flagged `needs_ocr`; only the
    header is read here, so this is fast. Raises ExtractionError for files Pillow cannot identify."""
    frames = image_frame_count(data)
    builder = PageBuilder()
    for number in range(1, frames + 1):
        builder.add("", "image" if frames == 1 else f"page {number}", number=number, needs_ocr=True)
    return builder.build(fallback_title, "image")


def image_frame_count(data: bytes) -> int:
    """How many frames (pages) the image has; refuses unreadable and oversized images with a reason."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            frames = getattr(image, "n_frames", 1)
            fmt = image.format or "image"
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise ExtractionError(f"unreadable image ({type(exc).__name__}: {str(exc)[:200]})") from exc
    except Image.DecompressionBombError as exc:
        raise ExtractionError(f"image too large to read ({exc})") from exc
    if width * height > MAX_PIXELS:
        raise ExtractionError(f"image too large for OCR ({width} x {height} pixels)")
    if fmt not in ("PNG", "JPEG", "MPO", "TIFF", "WEBP"):
        raise ExtractionError(f"not a PNG, JPEG, TIFF or WebP image (it is {fmt})")
    return min(frames, MAX_FRAMES)
