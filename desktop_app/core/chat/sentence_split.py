"""Sentence spans of any text the pipeline handles, for quoting: ICU sentence breaks, then script rules ICU lacks.

ICU (icu4py) breaks after . ! ? and their equivalents in other scripts (Chinese 。！？, Arabic ؟ and ۔, Devanagari
।) and after every line break, so a line of a table or a list is a sentence of its own. Thai, Lao, Khmer and
Myanmar end sentences with a space instead of a mark, which ICU does not treat as a break: a space between two
characters of those scripts ends a sentence here. English abbreviations ("Dr. Quell", "e.g. this") do not end a
sentence (ICU's suppression list when the wheel has it, and a short list of our own either way). Without ICU,
a regular expression over the same marks stands in.

Spans are code-point offsets into the text itself, stripped of surrounding white space; pure functions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import regex

from desktop_app.core.log import get_logger
from desktop_app.core.text.segment import SEA

log = get_logger("chat")

Span = tuple[int, int]
MAX_SENTENCE = 600  # characters; a longer "sentence" (a page with no full stop) is cut at spaces or commas
_SEA_SPACE = regex.compile(rf"(?<=[{SEA}][\p{{M}}]*)[ \u00a0]+(?=[{SEA}])")
_FALLBACK_END = regex.compile(r"[.!?。！？؟۔।]+[\"'”’)\]]*(?=\s|$)|[。！？؟]+|\n+")
_ABBREVIATION = regex.compile(
    r"(?:^|[\s(])(?:[A-Z]|Dr|Mr|Mrs|Ms|St|Jr|Sr|Prof|Mt|No|vs|etc|e\.g|i\.e|Fig|Inc|Ltd|Co)\.\s*$")
_SOFT_CUT = regex.compile(r"[,;:،、，；]\s+|\s+")


def _load_icu() -> Callable[[str], Iterator[str]] | None:
    try:
        from icu4py.breakers import SentenceBreaker
    except ImportError as exc:  # no wheel for this platform: marks and line breaks only
        log.warning("ICU sentence breaks unavailable (%s): quotes split at punctuation only", exc)
        return None
    return lambda text: iter(SentenceBreaker(text, "en"))


ICU_SENTENCES = _load_icu()


def _raw_spans(text: str) -> list[Span]:
    """Spans that together cover `text`, from ICU (its segment strings' lengths) or the fallback expression."""
    if ICU_SENTENCES is not None:
        spans, pos = [], 0
        for piece in ICU_SENTENCES(text):
            spans.append((pos, pos + len(piece)))
            pos += len(piece)
        if pos == len(text):
            return spans
    spans, start = [], 0
    for m in _FALLBACK_END.finditer(text):
        spans.append((start, m.end()))
        start = m.end()
    return [*spans, (start, len(text))] if start < len(text) else spans


def _join_abbreviations(text: str, spans: list[Span]) -> list[Span]:
    """Undo a break after "Dr." or "e.g." when the line goes on (a break at a line end stays)."""
    out: list[Span] = []
    for start, end in spans:
        if out and _ABBREVIATION.search(text[out[-1][0]:out[-1][1]]) and "\n" not in text[out[-1][0]:out[-1][1]]:
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def _split_sea(text: str, span: Span) -> Iterator[Span]:
    start, end = span
    for m in _SEA_SPACE.finditer(text, start, end):
        yield start, m.start()
        start = m.end()
    yield start, end


def _cap(text: str, span: Span, limit: int) -> Iterator[Span]:
    """Cut a span longer than `limit` at the last comma or space before it (or hard, when there is none)."""
    start, end = span
    while end - start > limit:
        cut = max((m.end() for m in _SOFT_CUT.finditer(text, start + limit // 2, start + limit)), default=start + limit)
        yield start, cut
        start = cut
    yield start, end


def _strip(text: str, span: Span) -> Span | None:
    start, end = span
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else None


def sentence_spans(text: str, *, limit: int = MAX_SENTENCE) -> list[Span]:
    """(start, end) of each sentence of `text`, in order, without surrounding white space; never overlapping."""
    out: list[Span] = []
    for raw in _join_abbreviations(text, _raw_spans(text)):
        for piece in _split_sea(text, raw):
            for capped in _cap(text, piece, limit):
                stripped = _strip(text, capped)
                if stripped is not None:
                    out.append(stripped)
    return out
