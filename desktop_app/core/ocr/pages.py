"""OCR of the pages an extraction flagged `needs_ocr`, and merging what OCR read back into the document."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from desktop_app.core.errors import ExtractionError
from desktop_app.core.ingest.extract_rows import Extracted, Page, with_page_text
from desktop_app.core.ingest.page_images import page_image
from desktop_app.core.ocr.engine import OcrEngine, ocr_image

NO_TEXT_REASON = "OCR found no text on this page"


@dataclass(frozen=True)
class OcrPage:
    """OCR's outcome for one page: its text and confidence, or the reason it has no text."""

    number: int
    text: str
    confidence: float
    reason: str = ""


def ocr_page(data: bytes, doc: Extracted, page: Page, engine: OcrEngine | None = None) -> OcrPage:
    """OCR one page of `doc` (whose file bytes are `data`); failures become a reason, never an exception."""
    try:
        result = ocr_image(page_image(data, doc.type, page), engine)
    except ExtractionError as exc:
        return OcrPage(page.number, "", 0.0, str(exc))
    if not result.text.strip():
        return OcrPage(page.number, "", 0.0, NO_TEXT_REASON)
    return OcrPage(page.number, result.text, result.confidence)


def ocr_pages(data: bytes, doc: Extracted, engine: OcrEngine | None = None,
              should_stop: Callable[[], bool] = lambda: False) -> Iterator[OcrPage]:
    """OCR every page of `doc` that needs it, one at a time (a caller can stop between pages)."""
    for page in doc.pages_needing_ocr:
        if should_stop():
            return
        yield ocr_page(data, doc, page, engine)


def apply_ocr(doc: Extracted, results: list[OcrPage]) -> Extracted:
    """`doc` with OCR's text in its pages (flagged `ocr`); pages OCR could not read stay empty and flagged."""
    return with_page_text(doc, {r.number: r.text for r in results if r.text.strip()})
