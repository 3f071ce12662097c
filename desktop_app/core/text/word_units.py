"""Words of every script, as units of length: what chunk sizes (ingest/chunking.py) and prompt windows
(chat/answer/focus.py) are counted in, so a Thai or Chinese chunk holds about as much as an English one.

A whitespace word used to be the unit, but Thai, Chinese and Japanese put no spaces between words: a Thai
paragraph was a handful of "words" of up to 64 characters, and a whole five-paragraph article one chunk.
Here a run of non-space characters that holds Thai, Lao, Khmer, Myanmar, Han, Kana or Hangul is cut where
core.text.segment (ICU's dictionaries, the keyword index's own segmentation) puts its word starts; any other
run stays one unit. A unit never exceeds MAX_WORD_CHARS (longer ones are cut into pieces of that length).
Units tile each run exactly, so a slice from one unit's start to another's end loses no character.
On XQuAD's parallel articles: English 7,253 units, Thai 10,403, Chinese 7,932, Arabic 6,620.

Segmentation restarts every BLOCK characters of a run, so the units of a text streamed in segments are those
of the whole (chunking.chunk_stream may restart at any block start). Text with no character of those scripts
is cut by one regular expression, as before.
"""

from __future__ import annotations

import bisect
import re

import regex

from desktop_app.core.text import segment

MAX_WORD_CHARS = 64
BLOCK = 16 * MAX_WORD_CHARS  # a multiple of MAX_WORD_CHARS: a block without those scripts is cut as before
_PIECE = re.compile(rf"\S{{1,{MAX_WORD_CHARS}}}")
_RUN = re.compile(r"\S+")
_UNSPACED = regex.compile(rf"[{segment.CJK}{segment.SEA}]")
_UP_TO_LAST_SPACE = re.compile(r".*\s", re.DOTALL)

Unit = tuple[int, int]


def has_unspaced(text: str) -> bool:
    """Whether `text` holds a character of a script written without spaces between words."""
    return _UNSPACED.search(text) is not None


def units(text: str) -> list[Unit]:
    """(start, end) of every unit of `text`, in order."""
    if not has_unspaced(text):  # the common case, and the cost it always had
        return [(m.start(), m.end()) for m in _PIECE.finditer(text)]
    out: list[Unit] = []
    for run in _RUN.finditer(text):
        a, b = run.span()
        if _UNSPACED.search(text, a, b) is None:
            out += [(m.start(), m.end()) for m in _PIECE.finditer(text, a, b)]
            continue
        for block in range(a, b, BLOCK):
            out += _block_units(text, block, min(block + BLOCK, b))
    return out


def _block_units(text: str, a: int, b: int) -> list[Unit]:
    """The units of text[a:b] (no whitespace inside): cut at the word starts ICU finds, then at MAX_WORD_CHARS."""
    if _UNSPACED.search(text, a, b) is None:
        return [(m.start(), m.end()) for m in _PIECE.finditer(text, a, b)]
    starts = sorted({a} | {a + s for _, s, _ in segment.words(text[a:b])})
    out: list[Unit] = []
    for s, e in zip(starts, [*starts[1:], b], strict=True):
        out += [(p, min(p + MAX_WORD_CHARS, e)) for p in range(s, e, MAX_WORD_CHARS)]
    return out


def restart_point(text: str, pos: int) -> int:
    """A position <= `pos` from which `units` of the rest of `text` cuts exactly as it does in the whole: the start
    of `pos`'s block (block starts are BLOCK apart from the start of its run of non-space characters)."""
    last_space = _UP_TO_LAST_SPACE.match(text, 0, pos)
    run_start = last_space.end() if last_space else 0
    return run_start + (pos - run_start) // BLOCK * BLOCK


def first_unsettled(text: str, found: list[Unit]) -> int:
    """Index of the first unit that text appended to `text` could change: the units of the last block of its last
    run of non-space characters (that run may go on, and ICU may then cut its last block differently)."""
    if not found:
        return 0
    last_start = restart_point(text, found[-1][0])
    return bisect.bisect_left(found, (last_start, -1))
