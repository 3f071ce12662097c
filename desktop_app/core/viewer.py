"""The built-in viewer's reads (`library.viewer`): a passage in its document's text with the passage and a quote
located, a page rendered with their boxes (a PDF page with PDFium's character boxes; a scanned page or an image file
with the boxes of the words OCR read there), and a memory item (a fact, a past chat's turns) as text. The window
calls these on its task runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.filetypes import file_type
from desktop_app.core.ocr.words import decode_words
from desktop_app.core.text.language import RIGHT_TO_LEFT
from desktop_app.core.viewer_image import render_image_page
from desktop_app.core.viewer_memory import memory_passage
from desktop_app.core.viewer_ocr import with_ocr_boxes
from desktop_app.core.viewer_pdf import render_pdf_page
from desktop_app.core.viewer_rows import PassageText, PdfPage
from desktop_app.core.viewer_text import assemble, find_text

__all__ = ["LibraryViewer"]

REACH = 150  # chunks either side of the passage: the text shown around it (a 200 MB log is never read whole)
WHOLE_TYPES = ("code", "markdown")  # shown whole when small: code with the file's line numbers, Markdown rendered
WHOLE_MAX_BYTES = 2 * 1024 * 1024


class LibraryViewer:
    """A Library's viewer reads (made on each use, like `backups`)."""

    def __init__(self, library: Any) -> None:
        self._library = library

    def passage(self, chunk_id: int, quote: str = "", *, reach: int = REACH) -> PassageText | None:
        """Chunk `chunk_id` in the text around it (None when it is gone: the file changed since it was found);
        `quote` (a stretch of it, as a chat answer quoted it) located too."""
        store = self._library.store
        row = store.chunk_rows([chunk_id]).get(chunk_id)
        around = store.chunks_around(chunk_id, reach)
        if row is None or not around:
            return None
        focus = next((i for i, c in enumerate(around) if (c[1], c[3]) == (row.start, row.text)), 0)
        text, start, end = assemble(around, focus)
        whole = _whole_text(row)
        if whole is not None:
            text, start, end = whole, row.start, row.start + len(row.text)
        q_start = q_end = -1
        if quote.strip():
            inside = find_text(text[start:end], quote)
            found = (start + inside[0], start + inside[1]) if inside else find_text(text, quote, near=start)
            if found is not None:
                q_start, q_end = found
        return PassageText(row.container or row.path, row.title, row.type, text, start, end, row.page, q_start,
                           q_end, row.lang in RIGHT_TO_LEFT, row.text, pdf=row.type == "pdf" and not row.container,
                           place=_place(row), whole=whole is not None, image=row.type == "image" and not row.container)

    def pdf_page(self, path: str, page: int, *, scale: float = 1.5, passage: str = "", quote: str = "",
                 fit_width: float = 0.0) -> PdfPage:
        """Page `page` (from 1) of a PDF or an image file rendered at `scale` pixels per point (or `fit_width` pixels
        wide), with the passage's and the quote's boxes: PDFium's character boxes, or on a page OCR read (no text
        layer) the boxes of the words OCR read there (kept with the page's text at index time)."""
        if file_type(Path(path)) == "image":
            rendered = render_image_page(path, page, scale, fit_width)
        else:
            rendered = render_pdf_page(path, page, scale, passage, quote, fit_width)
        if rendered.passage_boxes or rendered.quote_boxes:
            return rendered
        words = decode_words(self._library.store.ocr_words(path, rendered.page))
        return with_ocr_boxes(rendered, words, passage, quote) if words else rendered

    def memory(self, item: dict[str, Any]) -> PassageText:
        """A memory item the Sources list shows (a cited fact, a recalled past chat's excerpt) as text: the fact with
        the turn it was stated in, or the excerpt's turns in their chat, highlighted (core/viewer_memory.py)."""
        return memory_passage(self._library, item)


def _whole_text(row: Any) -> str | None:
    """A small code or Markdown file's whole text, decoded as it was for indexing, when the chunk is still where its
    span says (the file did not change since); None otherwise (the chunks around the passage are shown)."""
    if row.type not in WHOLE_TYPES or row.container:
        return None
    from desktop_app.core.ingest.sniff import text_of

    try:
        with open(row.path, "rb") as fh:
            raw = fh.read(WHOLE_MAX_BYTES + 1)
        text = text_of(raw) if len(raw) <= WHOLE_MAX_BYTES else None
    except (OSError, ValueError, ExtractionError):
        return None
    if text is None or text[row.start:row.start + len(row.text)] != row.text:
        return None
    return text


def _place(row: Any) -> str:
    """How a citation names where the chunk is: its part ("message 2 · report.pdf"), then its label ("slide 3") or
    page."""
    where = row.label or (f"p. {row.page}" if row.page is not None else "")
    return " · ".join(p for p in (row.part_label, where) if p)
