"""A passage and a quote on a page OCR read: the boxes of their words, from the words OCR kept with the page's text
(core/ocr/words.py). A scanned page has no text layer for PDFium to give character boxes; OCR's word boxes stand in.

Pure: the words are matched by their text the way the viewer finds a passage in a PDF's text layer (ignoring spacing,
line breaks and case), and each word the passage or quote touches is covered whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from desktop_app.core.ocr.words import OcrWord
from desktop_app.core.viewer_rows import Box, PdfPage
from desktop_app.core.viewer_text import find_text

LINE_SLACK = 0.5  # words whose vertical middles are within half a word's height are on one line


def with_ocr_boxes(page: PdfPage, words: Sequence[OcrWord], passage: str, quote: str) -> PdfPage:
    """`page` with the passage's and the quote's boxes taken from OCR's words (quote_chars: the quote's [first, last)
    word indices)."""
    text, spans = _laid_out(words)
    found = find_text(text, passage) if passage.strip() else None
    quoted = None
    if quote.strip():
        if found is not None:
            inside = find_text(text[found[0]:found[1]], quote)
            quoted = (found[0] + inside[0], found[0] + inside[1]) if inside is not None else None
        quoted = quoted or find_text(text, quote)
    passage_words = _touched(spans, found)
    quote_words = _touched(spans, quoted)
    return replace(page, passage_boxes=_boxes(words, passage_words, page.width, page.height),
                   quote_boxes=_boxes(words, quote_words, page.width, page.height),
                   quote_chars=quote_words or (-1, -1), ocr=True)


def _laid_out(words: Sequence[OcrWord]) -> tuple[str, list[tuple[int, int]]]:
    """The words joined by spaces, and each word's [start, end) in that text."""
    spans, at = [], 0
    for word in words:
        spans.append((at, at + len(word.text)))
        at += len(word.text) + 1
    return " ".join(w.text for w in words), spans


def _touched(spans: list[tuple[int, int]], found: tuple[int, int] | None) -> tuple[int, int] | None:
    """[first, last) of the words that share a character with `found`."""
    if found is None:
        return None
    hit = [i for i, (start, end) in enumerate(spans) if start < found[1] and found[0] < end]
    return (hit[0], hit[-1] + 1) if hit else None


def _boxes(words: Sequence[OcrWord], which: tuple[int, int] | None, width: int, height: int) -> tuple[Box, ...]:
    """The words' boxes in pixels of a `width` x `height` page, merged into one rectangle per line (in reading
    order): the gaps between words are washed too, as a selection in a text layer is."""
    if which is None:
        return ()
    lines: list[Box] = []
    for word in words[which[0]:which[1]]:
        box = Box(word.left * width, word.top * height, word.right * width, word.bottom * height)
        last = lines[-1] if lines else None
        middle, tall = (box.top + box.bottom) / 2, box.bottom - box.top
        if (last is not None and abs((last.top + last.bottom) / 2 - middle) <= LINE_SLACK * max(tall, 1.0)
                and box.left >= last.left):
            lines[-1] = Box(last.left, min(last.top, box.top), max(last.right, box.right), max(last.bottom, box.bottom))
        else:
            lines.append(box)
    return tuple(lines)
