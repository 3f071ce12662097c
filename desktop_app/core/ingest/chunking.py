"""Split extracted text into overlapping chunks that end on paragraph boundaries where they can.

Sizes are counted in whitespace-separated words. Every chunk is an exact slice of the input
(`text[start:end]`), so spans can be shown and highlighted, and no word is ever lost.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WORD = re.compile(r"\S+")
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
    cfg = config or ChunkConfig()
    if len(text.split()) <= cfg.chunk_size:  # the common short document: one chunk, no per-word spans needed
        first = _WORD.search(text)
        if first is None:
            return []
        end = len(text.rstrip())
        return [Span(offset + first.start(), offset + end, text[first.start():end])]
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    if not words:
        return []
    para_starts = _paragraph_start_indices(text, words)
    ranges: list[tuple[int, int]] = []
    i, n = 0, len(words)
    while i < n:
        j = min(i + cfg.chunk_size, n)
        if j < n:
            j = _prefer_paragraph_end(i, j, para_starts, cfg)
        ranges.append((i, j))
        if j >= n:
            break
        i = max(j - cfg.chunk_overlap, i + 1)
    ranges = _merge_short_tail(ranges, cfg)
    return [Span(offset + words[a][0], offset + words[b - 1][1], text[words[a][0]:words[b - 1][1]]) for a, b in ranges]


def chunk_text(text: str, config: ChunkConfig | None = None) -> list[str]:
    """The seed API: the chunks of `text` as strings."""
    return [span.text for span in chunk_spans(text, config)]


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
    """Move a chunk's end back to the last paragraph start in (i, j] that keeps it big enough to be worth it."""
    floor = i + max(cfg.min_chunk_size, cfg.chunk_overlap + 1, cfg.chunk_size // 2)
    best = j
    for p in reversed(para_starts):
        if p > j:
            continue
        if p < floor or p <= i:
            break
        best = p
        break
    return best


def _merge_short_tail(ranges: list[tuple[int, int]], cfg: ChunkConfig) -> list[tuple[int, int]]:
    """A last chunk with fewer than min_chunk_size new words joins the one before it."""
    if len(ranges) < 2:
        return ranges
    (pa, pb), (la, lb) = ranges[-2], ranges[-1]
    if lb - pb < cfg.min_chunk_size:
        return ranges[:-2] + [(pa, lb)]
    return ranges
