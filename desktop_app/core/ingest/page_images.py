"""A page as a picture: a PDF page rendered by PDFium, or a frame of a PNG/JPEG/TIFF/WebP file read by Pillow.

OCR reads these pictures and the viewer shows them; both render inside the sandboxed worker, so this lives in
ingest beside the parsers (ocr/ and the viewer import it; ingest never imports ocr)."""

from __future__ import annotations

import io
import math

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extract_rows import Page

RENDER_DPI = 150  # 12-point text is ~25 pixels high: enough for the recogniser, half the pixels of 200 dpi
MAX_RENDER_PIXELS = 40_000_000  # a poster-sized page is rendered at a lower resolution, not refused
MAX_IMAGE_PIXELS = 60_000_000


def render_pdf_page(data: bytes, number: int, dpi: int = RENDER_DPI):
    """Page `number` (1-based) of the PDF in `data` as an RGB PIL image at about `dpi`."""
    from desktop_app.core.ingest.formats.pdf import PDFIUM_LOCK, open_pdf

    with PDFIUM_LOCK:
        document = open_pdf(data)
        try:
            if not 1 <= number <= len(document):
                raise ExtractionError(f"the PDF has no page {number}")
            page = document[number - 1]
            try:
                width, height = page.get_size()
                scale = min(dpi / 72, math.sqrt(MAX_RENDER_PIXELS / max(width * height, 1.0)))
                bitmap = page.render(scale=scale)
                image = bitmap.to_pil().convert("RGB")
                bitmap.close()
            finally:
                page.close()
        except ExtractionError:
            raise
        except Exception as exc:  # PDFium render errors on a damaged page
            raise ExtractionError(f"could not render page {number} ({type(exc).__name__}: {exc})") from exc
        finally:
            document.close()
    return image


def load_image(data: bytes, frame: int = 1):
    """Frame `frame` (1-based; a multi-page TIFF has several) of an image file as an RGB PIL image."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.width * image.height > MAX_IMAGE_PIXELS:
                raise ExtractionError(f"image too large for OCR ({image.width} x {image.height} pixels)")
            if frame > 1:
                image.seek(frame - 1)
            # a phone photo stores its rotation in EXIF; OCR needs the text upright
            return ImageOps.exif_transpose(image).convert("RGB")
    except ExtractionError:
        raise
    except (UnidentifiedImageError, OSError, ValueError, EOFError, SyntaxError, Image.DecompressionBombError) as exc:
        raise ExtractionError(f"unreadable image ({type(exc).__name__}: {str(exc)[:200]})") from exc


def page_image(data: bytes, doc_type: str, page: Page):
    """The picture of one page: a rendered PDF page, or a frame of an image file."""
    if doc_type == "pdf":
        return render_pdf_page(data, page.number)
    if doc_type == "image":
        return load_image(data, page.number)
    raise ExtractionError(f"OCR is not done for {doc_type} files")
