"""The words OCR read on a page, each with its box, so the viewer can highlight a passage on a scan.

RapidOCR gives each recognised line's words (a Chinese or Japanese line: its characters) as quadrilaterals in the
picture it read. They are kept as boxes in fractions of the page picture (0..1 from the top left), so they fit the
page at whatever scale the viewer renders it. A page's words are stored with its OCR text (ocr_pages.words) as a
compact JSON list: `[[text, left, top, right, bottom], ...]` in reading order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

DIGITS = 4  # a ten-thousandth of the page: under a pixel at any zoom the viewer allows


@dataclass(frozen=True)
class OcrWord:
    """One word OCR read, and its box in fractions of the page picture (origin top left)."""

    text: str
    left: float
    top: float
    right: float
    bottom: float


def band_words(word_results: object, top: int, keep_from: int, keep_to: int, width: int,
               height: int) -> list[OcrWord]:
    """The words of one band's RapidOCR output (`word_results`: per line, (text, score, 4 corner points) per word,
    in the band's pixels), kept when their middle lies in [keep_from, keep_to) of the page (the rule that keeps a
    band's lines), as fractions of the `width` x `height` page picture. Anything of another shape is left out:
    a line without word boxes gives no words, never wrong ones."""
    out = []
    for line in word_results if isinstance(word_results, (tuple, list)) else ():
        for item in line if isinstance(line, (tuple, list)) else ():
            word = _word(item, top, width, height)
            if word is not None and keep_from <= (word.top + word.bottom) / 2 * height < keep_to:
                out.append(word)
    return out


def _word(item: object, top: int, width: int, height: int) -> OcrWord | None:
    if not isinstance(item, (tuple, list)) or len(item) != 3 or not isinstance(item[0], str) or not item[0].strip():
        return None
    try:
        xs = [float(point[0]) for point in item[2]]
        ys = [float(point[1]) + top for point in item[2]]
    except (TypeError, ValueError, IndexError):
        return None
    if not xs or max(xs) <= min(xs) or max(ys) <= min(ys):
        return None
    return OcrWord(item[0].strip(), _clamp(min(xs) / width), _clamp(min(ys) / height), _clamp(max(xs) / width),
                   _clamp(max(ys) / height))


def _clamp(value: float) -> float:
    return min(max(value, 0.0), 1.0)


def encode_words(words: Sequence[OcrWord]) -> str | None:
    """The words as stored (None when there are none)."""
    if not words:
        return None
    return json.dumps([[w.text, round(w.left, DIGITS), round(w.top, DIGITS), round(w.right, DIGITS),
                        round(w.bottom, DIGITS)] for w in words], ensure_ascii=False, separators=(",", ":"))


def decode_words(stored: str | None) -> list[OcrWord]:
    """The words a page's row holds ([] for none, or for a value that is not such a list)."""
    if not stored:
        return []
    try:
        rows = json.loads(stored)
    except ValueError:
        return []
    return list(_decoded(rows if isinstance(rows, list) else []))


def _decoded(rows: Iterable[object]) -> Iterable[OcrWord]:
    for row in rows:
        if isinstance(row, list) and len(row) == 5 and isinstance(row[0], str):
            try:
                yield OcrWord(row[0], float(row[1]), float(row[2]), float(row[3]), float(row[4]))
            except (TypeError, ValueError):
                continue
