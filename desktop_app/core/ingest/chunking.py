"""Split extracted text into overlapping chunks that end on paragraph boundaries where they can.

Sizes are counted in words of every script (core/text/word_units.py): runs of non-space characters, Thai, Chinese and
Japanese runs cut into the words ICU finds, any word longer than MAX_WORD_CHARS counting once per
MAX_WORD_CHARS characters (so 5 MB without a space is many chunks, not one). A whitespace run of MAX_GAP
characters or more always ends a chunk. Every chunk is an exact slice of the input
(`text[start:end]`), so spans can be shown and highlighted, and no word is ever lost.

Everything here is linear in the input: `chunk_stream` cuts text that arrives in segments (a file too big
to hold) into exactly the chunks `chunk_spans` would cut from the whole.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from desktop_app.core.text.word_units import (
    MAX_WORD_CHARS,
    first_unsettled,
    has_unspaced,
    restart_point,
    units,
)

MAX_GAP = 4096
# Bump when the same text and ChunkConfig can be cut into other chunks: a library chunked by another version
# re-reads its files once (index/indexer.py; unchanged chunk texts keep their vectors). 2: words of every script.
CHUNKER_VERSION = 2
_GAP = re.compile(rf"\s{{{MAX_GAP},}}")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n")


@dataclass(frozen=True)
class ChunkConfig:
    """How text is cut: `chunk_size` words per chunk, `chunk_overlap` words repeated, short tails merged."""

    chunk_size: int = 512
    chunk_overlap: int = 64
    min_chunk_size: int = 50

    def __post_init__(self) -> None:
        if self.chunk_size < 1:
            raise ValueError("chunk_size must be at least 1")
        if not 0 <= self.chunk_overlap < self.chunk_size:
            raise ValueError("chunk_overlap must be at least 0 and smaller than chunk_size")
        if self.min_chunk_size < 0:
            raise ValueError("min_chunk_size must not be negative")


@dataclass(frozen=True)
class Span:
    """A chunk as a slice of the text it came from."""

    start: int
    end: int
    text: str


def chunk_spans(text: str, config: ChunkConfig | None = None, offset: int = 0) -> list[Span]:
    """Cut `text` into chunks; spans are shifted by `offset` (for text that is part of a larger one)."""
    return _chunk_from(text, config or ChunkConfig(), offset, 0)


def _chunk_from(text: str, cfg: ChunkConfig, offset: int, first: int) -> list[Span]:
    """`chunk_spans`, the first chunk starting at the unit that starts at `first` (the text before it is only
    there so that units are cut as in the whole text: see chunk_stream)."""
    if _GAP.search(text) is None:
        return _chunk_section(text, cfg, offset, first)
    spans: list[Span] = []
    start = 0
    for gap in _GAP.finditer(text):
        spans += _chunk_section(text[start:gap.start()], cfg, offset + start, first)
        start, first = gap.end(), 0
    return spans + _chunk_section(text[start:], cfg, offset + start, first)


def chunk_text(text: str, config: ChunkConfig | None = None) -> list[str]:
    """The seed API: the chunks of `text` as strings."""
    return [span.text for span in chunk_spans(text, config)]


def chunk_stream(segments: Iterable[str], config: ChunkConfig | None = None) -> Iterator[Span]:
    """The chunks of the concatenated `segments`, yielded as soon as later text cannot change them.

    Memory holds one segment plus at most two chunks' worth of carried text, whatever the total length.
    """
    cfg = config or ChunkConfig()
    carry, base, first = "", 0, 0
    for segment in segments:
        buf = carry + segment
        last_gap = None
        for gap in _GAP.finditer(buf):
            last_gap = gap
        if last_gap is not None:  # everything before the last long gap is a finished section
            yield from _chunk_from(buf[:last_gap.start()], cfg, base, first)
            buf, base, first = buf[last_gap.end():], base + last_gap.end(), 0
        spans, keep, first = _final_spans(buf, cfg, base, first)
        yield from spans
        carry, base = buf[keep:], base + keep
    yield from _chunk_from(carry, cfg, base, first)


def _chunk_section(text: str, cfg: ChunkConfig, offset: int, first: int = 0) -> list[Span]:
    """Chunks of text holding no long gap, the first starting at the unit that starts at `first`."""
    parts = text.split()  # the same whitespace as the patterns' \s and \S
    if (not first and len(parts) <= cfg.chunk_size and max(map(len, parts), default=0) <= MAX_WORD_CHARS
            and (not has_unspaced(text) or len(units(text)) <= cfg.chunk_size)):
        if not parts:  # the common short document: one chunk, no per-word spans needed
            return []
        start, end = len(text) - len(text.lstrip()), len(text.rstrip())
        return [Span(offset + start, offset + end, text[start:end])]
    words = units(text)
    if not words:
        return []
    start_at = bisect.bisect_left(words, (first, -1))
    ranges = _ranges(len(words), _paragraph_start_indices(text, words), cfg, start=start_at)
    return [_span(text, words, a, b, offset) for a, b in _merge_short_tail(ranges, cfg)]


def _span(text: str, words: list[tuple[int, int]], a: int, b: int, offset: int) -> Span:
    return Span(offset + words[a][0], offset + words[b - 1][1], text[words[a][0]:words[b - 1][1]])


def _ranges(n: int, para_starts: list[int], cfg: ChunkConfig, settled: int | None = None,
            start: int = 0) -> list[tuple[int, int]]:
    """Word ranges [i, j) of the chunks, from word `start` on. With `settled`, only those that more text cannot
    change (words from index `settled` on may still change)."""
    ranges: list[tuple[int, int]] = []
    i = start
    while i < n:
        if settled is not None and i + cfg.chunk_size >= settled:
            break
        j = min(i + cfg.chunk_size, n)
        if j < n:
            j = _prefer_paragraph_end(i, j, para_starts, cfg)
        ranges.append((i, j))
        if j >= n:
            break
        i = max(j - cfg.chunk_overlap, i + 1)
    return ranges


def _final_spans(buf: str, cfg: ChunkConfig, base: int, first: int) -> tuple[list[Span], int, int]:
    """Chunks of `buf` that text appended to it cannot change; where the text still to be cut is kept from, and
    where in that kept text the next chunk starts.

    A range is final when it ends before the buffer's last word (which may be cut in half; in Thai or Chinese,
    its last block, which ICU may cut differently). The last final range is held back too: it starts the next
    buffer, so the short-tail rule never needs an emitted chunk. The kept text starts where units restart
    (word_units.restart_point), which may be a little before that range.
    """
    words = units(buf)
    start_at = bisect.bisect_left(words, (first, -1))
    ranges = _ranges(len(words), _paragraph_start_indices(buf, words), cfg, first_unsettled(buf, words), start_at)
    if len(ranges) < 2:
        return [], 0, first
    spans = [_span(buf, words, a, b, base) for a, b in ranges[:-1]]
    held = words[ranges[-1][0]][0]
    keep = restart_point(buf, held)
    return spans, keep, held - keep


def _paragraph_start_indices(text: str, words: list[tuple[int, int]]) -> list[int]:
    """Indices of words that begin a paragraph (the first word after a blank line)."""
    breaks = [m.end() for m in _PARAGRAPH_BREAK.finditer(text)]
    starts: list[int] = []
    w = 0
    for pos in breaks:
        while w < len(words) and words[w][0] < pos:
            w += 1
        if w < len(words) and (not starts or starts[-1] != w):
            starts.append(w)
    return starts


def _prefer_paragraph_end(i: int, j: int, para_starts: list[int], cfg: ChunkConfig) -> int:
    """Move a chunk's end back to the last paragraph start in (i, j] that keeps it big enough to be worth it.

    A binary search: scanning the paragraph list from its end made chunking quadratic (a 4.5 MB DOCX of
    190,000 one-line paragraphs took 6.6 s).
    """
    floor = i + max(cfg.min_chunk_size, cfg.chunk_overlap + 1, cfg.chunk_size // 2)
    k = bisect.bisect_right(para_starts, j) - 1
    if k >= 0 and para_starts[k] >= floor and para_starts[k] > i:
        return para_starts[k]
    return j


def _merge_short_tail(ranges: list[tuple[int, int]], cfg: ChunkConfig) -> list[tuple[int, int]]:
    """A last chunk with fewer than min_chunk_size new words joins the one before it."""
    if len(ranges) < 2:
        return ranges
    (pa, pb), (_, lb) = ranges[-2], ranges[-1]
    if lb - pb < cfg.min_chunk_size:
        return ranges[:-2] + [(pa, lb)]
    return ranges
