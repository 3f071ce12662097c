"""PDF text with PDFium (pypdfium2): the text layer of each page, and the pages that have none flagged for OCR.

PDFium is ~50x faster than pdfplumber (bench/extract_formats.py) and splits words better (pdfplumber glues
LaTeX words: "hereissometext"), but it returns right-to-left scripts (Arabic, Hebrew) in visual order with
stray glyphs, where pdfplumber gives the logical order: pages with RTL text are re-read with pdfplumber.
PDFium is not thread-safe: every use of it in Trove (here, and page rendering for OCR) holds PDFIUM_LOCK.
"""

from __future__ import annotations

import re
import threading

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extract_rows import Extracted, PageBuilder
from desktop_app.core.log import get_logger

log = get_logger("ingest")

PDFIUM_LOCK = threading.RLock()
ENCRYPTED_REASON = "encrypted PDF (needs a password)"
# control characters, and private-use glyphs (TeX draws big delimiters with them; they mean nothing to search)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ue000-\uf8ff\ufffe\uffff]")
_TRAILING_SPACE = re.compile(r"[ \t]+\n")
_RTL = re.compile(r"[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")


def extract_pdf(data: bytes, fallback_title: str) -> Extracted:
    """Every page's text, numbered from 1; a page with no text but an image on it is flagged `needs_ocr`."""
    import pypdfium2 as pdfium

    with PDFIUM_LOCK:
        document = open_pdf(data)
        try:
            title = _metadata_title(document)
            pages = [_page_text(document, index) for index in range(len(document))]
        except pdfium.PdfiumError as exc:
            raise ExtractionError(f"corrupt or unreadable PDF ({exc})") from exc
        finally:
            document.close()
    rtl = [index for index, (text, _) in enumerate(pages) if _RTL.search(text)]
    if rtl:
        pages = _with_pdfplumber_text(data, pages, rtl)
    builder = PageBuilder()
    for text, has_image in pages:
        builder.add(text, needs_ocr=not text.strip() and has_image)
    return builder.build(title or fallback_title, "pdf")


def _with_pdfplumber_text(data: bytes, pages: list[tuple[str, bool]], indices: list[int]) -> list[tuple[str, bool]]:
    """`pages` with the text of `indices` re-read by pdfplumber (logical order for right-to-left scripts)."""
    import io

    import pdfplumber

    pages = list(pages)
    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            for index in indices:
                page = pdf.pages[index]
                text = (page.extract_text() or "").strip()
                page.close()
                if text:
                    pages[index] = (text, pages[index][1])
    except Exception as exc:  # noqa: BLE001 -- PDFium's text stays when pdfminer cannot parse the file
        log.info("pdfplumber could not re-read right-to-left pages: %s", exc)
    return pages


def open_pdf(data: bytes):
    """A pypdfium2 PdfDocument of `data` (call with PDFIUM_LOCK held); reasons for encrypted or broken files."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if getattr(exc, "err_code", None) == pdfium_c.FPDF_ERR_PASSWORD:
            raise ExtractionError(ENCRYPTED_REASON) from exc
        raise ExtractionError(f"corrupt or unreadable PDF ({exc})") from exc


def _page_text(document, index: int) -> tuple[str, bool]:
    """(the page's text, whether it shows an image): the second is only looked at when there is no text."""
    import pypdfium2.raw as pdfium_c

    page = document[index]
    try:
        textpage = page.get_textpage()
        try:
            text = clean_pdf_text(textpage.get_text_bounded())
        finally:
            textpage.close()
        has_image = False
        if not text.strip():
            has_image = any(True for _ in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=3))
        return text, has_image
    finally:
        page.close()


def clean_pdf_text(text: str) -> str:
    """PDFium's text with plain newlines, no control characters and no spaces before line ends."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", text)
    return _TRAILING_SPACE.sub("\n", text).strip()


def _metadata_title(document) -> str:
    try:
        raw = document.get_metadata_dict().get("Title", "")
    except Exception:  # noqa: BLE001 -- a damaged Info dictionary only costs the title
        return ""
    return raw.strip() if isinstance(raw, str) else ""
