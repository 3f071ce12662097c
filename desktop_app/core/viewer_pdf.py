"""PDF pages for the built-in viewer: one page rendered by PDFium, with the boxes of a passage's and a quote's
characters taken from PDFium's own text page (the same characters a person selects in a PDF reader).

Only the asked page is loaded and rendered, so page 800 of a 1,000-page file opens as fast as page 1. PDFium is
not thread-safe: every call holds PDFIUM_LOCK (as extraction and OCR rendering do). Callers run this on a worker.
"""

from __future__ import annotations

from desktop_app.core.errors import KnownError
from desktop_app.core.viewer_rows import Box, PdfPage
from desktop_app.core.viewer_text import find_text

LINE_SLACK = 0.5  # boxes whose vertical middles are within half a line height are on one line


def render_pdf_page(path: str, page: int, scale: float = 1.5, passage: str = "", quote: str = "",
                    fit_width: float = 0.0) -> PdfPage:
    """Page `page` (from 1; clamped to the file's pages) at `scale` pixels per point (`fit_width` > 0: the scale
    that makes the page that many pixels wide), with the passage's and the quote's boxes (the quote is looked for
    inside the passage first, then anywhere on the page)."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    from desktop_app.core.ingest.formats.pdf import PDFIUM_LOCK  # here: the window imports this module, not PDFium

    with PDFIUM_LOCK:
        try:
            document = pdfium.PdfDocument(path)
        except (pdfium.PdfiumError, OSError) as exc:
            raise KnownError(f"Cannot open {path}: {exc}") from exc
        try:
            count = len(document)
            index = min(max(page, 1), max(count, 1)) - 1
            pdf_page = document[index]
            try:
                height_pt = pdf_page.get_height()
                if fit_width > 0:
                    scale = fit_width / max(pdf_page.get_width(), 1.0)
                bitmap = pdf_page.render(scale=scale, fill_color=(255, 255, 255, 255),
                                         force_bitmap_format=pdfium_c.FPDFBitmap_BGRA)  # what QImage ARGB32 reads
                pixels = bytes(bitmap.buffer)
                textpage = pdf_page.get_textpage()
                try:
                    passage_chars, quote_chars = _spans(textpage, passage, quote)
                    passage_boxes = _boxes(textpage, passage_chars, scale, height_pt)
                    quote_boxes = _boxes(textpage, quote_chars, scale, height_pt)
                finally:
                    textpage.close()
                return PdfPage(path, index + 1, count, bitmap.width, bitmap.height, bitmap.stride, pixels, scale,
                               passage_boxes, quote_boxes, quote_chars or (-1, -1))
            finally:
                pdf_page.close()
        finally:
            document.close()


def _spans(textpage, passage: str, quote: str) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """The char index ranges of the passage and the quote in the page's text."""
    text = textpage.get_text_range(0, textpage.count_chars())
    found = find_text(text, passage) if passage.strip() else None
    quoted = None
    if quote.strip():
        if found is not None:
            inside = find_text(text[found[0]:found[1]], quote)
            quoted = (found[0] + inside[0], found[0] + inside[1]) if inside is not None else None
        quoted = quoted or find_text(text, quote)
    return found, quoted


def char_boxes(textpage, chars: tuple[int, int], scale: float, height_pt: float) -> list[Box]:
    """Each visible character's box in [first, last), in pixels of a page rendered at `scale` (spaces and line
    breaks left out: PDFium gives them a sliver at the baseline, which is no glyph to cover)."""
    text = textpage.get_text_range(chars[0], chars[1] - chars[0])
    out = []
    for i in range(chars[0], chars[1]):
        if i - chars[0] < len(text) and text[i - chars[0]].isspace():
            continue
        left, bottom, right, top = textpage.get_charbox(i, loose=True)  # the font's line height: lines merge
        if right > left and top > bottom:
            out.append(Box(left * scale, (height_pt - top) * scale, right * scale, (height_pt - bottom) * scale))
    return out


def _boxes(textpage, chars: tuple[int, int] | None, scale: float, height_pt: float) -> tuple[Box, ...]:
    """The characters' boxes merged into one rectangle per line (in reading order)."""
    if chars is None:
        return ()
    lines: list[Box] = []
    for box in char_boxes(textpage, chars, scale, height_pt):
        last = lines[-1] if lines else None
        middle, height = (box.top + box.bottom) / 2, box.bottom - box.top
        if last is not None and abs((last.top + last.bottom) / 2 - middle) <= LINE_SLACK * max(height, 1.0):
            lines[-1] = Box(min(last.left, box.left), min(last.top, box.top), max(last.right, box.right),
                            max(last.bottom, box.bottom))
        else:
            lines.append(box)
    return tuple(lines)
