"""Unicode normalisation that remembers where every character came from.

Text is made valid (lone surrogates → U+FFFD) and NFC-composed before it is segmented. NFC, never NFKC:
NFKC rewrites Thai SARA AM (ำ → ํา) and full-width forms, so the index and the user's text would disagree.
NFC can change the length of a text (a letter plus its combining accent becomes one character), so
`Normalized` keeps a sparse map back to positions in the original text: highlights must land on the
characters the user sees. Case folding and accent removal happen per token (`fold_word`), never on the
whole text, so they cannot move any offset.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass

import regex

from desktop_app.core.text import arabic

_SURROGATE = re.compile("[\ud800-\udfff]")
# Characters that may compose with the one before them under NFC: combining marks and Hangul medial/final
# jamo. A window boundary is safe anywhere else, so NFC can be checked and applied window by window.
_JOINER = regex.compile(r"[\p{M}\u1160-\u11ff\ud7b0-\ud7ff]")
_CLUSTER = regex.compile(r"[^\p{M}\u1160-\u11ff\ud7b0-\ud7ff]?[\p{M}\u1160-\u11ff\ud7b0-\ud7ff]*", regex.DOTALL)
_WINDOW = 512
# Scripts whose accents are dropped for matching (café = cafe), as FTS5's remove_diacritics does for Latin.
_ACCENTED = regex.compile(r"^[\p{Latin}\p{Greek}\p{Cyrillic}\p{M}\p{N}]+$")
_MARK = regex.compile(r"\p{Mn}+")


def clean(text: str) -> str:
    """`text` with lone surrogates (not encodable, e.g. from a broken file name or a bad decoder) as U+FFFD."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


@dataclass(frozen=True)
class Normalized:
    """An NFC text and the way back to the original's offsets.

    `breaks` holds (position in `text`, original position) at each place where the two stop advancing
    together; empty when the original was already NFC (the common case).
    """

    text: str
    original_length: int
    breaks: tuple[tuple[int, int], ...] = ()

    def original(self, pos: int) -> int:
        """The original offset of position `pos` of the normalised text (a slice end maps to a slice end)."""
        if not self.breaks:
            return pos
        i = bisect.bisect_right(self.breaks, (pos, self.original_length + 1)) - 1
        if i < 0:
            return pos
        norm_at, orig_at = self.breaks[i]
        following = self.breaks[i + 1][1] if i + 1 < len(self.breaks) else self.original_length
        return min(orig_at + (pos - norm_at), following)


def normalize(text: str) -> Normalized:
    """Clean and NFC-compose `text`, with the map back to the original offsets."""
    text = clean(text or "")
    if unicodedata.is_normalized("NFC", text):
        return Normalized(text, len(text))
    parts: list[str] = []
    breaks: list[tuple[int, int]] = []
    norm_pos = 0
    for start, end in _windows(text):
        window = text[start:end]
        if unicodedata.is_normalized("NFC", window):
            parts.append(window)
            norm_pos += len(window)
            continue
        norm_pos = _compose_window(window, start, norm_pos, parts, breaks)
    breaks.append((norm_pos, len(text)))
    return Normalized("".join(parts), len(text), _sparse(breaks))


def _windows(text: str):
    """Slices of about _WINDOW characters that start where no composition can cross (not before a joiner)."""
    start, n = 0, len(text)
    while start < n:
        end = min(start + _WINDOW, n)
        while end < n and _JOINER.match(text, end):
            end += 1
        yield start, end
        start = end


def _compose_window(window: str, offset: int, norm_pos: int, parts: list[str], breaks: list) -> int:
    """NFC one window cluster by cluster, recording each cluster's original start. Returns the new position."""
    for match in _CLUSTER.finditer(window):
        cluster = match.group(0)
        if not cluster:
            continue
        composed = unicodedata.normalize("NFC", cluster)
        breaks.append((norm_pos, offset + match.start()))
        parts.append(composed)
        norm_pos += len(composed)
    return norm_pos


def _sparse(breaks: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Keep only the points where the offset difference changes (plus the first), so lookups stay cheap."""
    kept: list[tuple[int, int]] = []
    for norm_at, orig_at in breaks:
        if kept and kept[-1][0] == norm_at:
            kept[-1] = (norm_at, orig_at)  # an empty normalised cluster: the later original position wins
            continue
        if kept and orig_at - norm_at == kept[-1][1] - kept[-1][0]:
            continue
        kept.append((norm_at, orig_at))
    return tuple(kept)


def fold_word(word: str) -> str:
    """The form a word is indexed and searched under: case-folded; Latin/Greek/Cyrillic accents removed;
    Arabic normalised (tashkeel, alef forms, taa marbuta, alef maqsura, tatweel)."""
    if word.isascii():
        return word.lower()
    word = word.casefold()
    if _ACCENTED.match(word):
        stripped = _MARK.sub("", unicodedata.normalize("NFD", word))
        return unicodedata.normalize("NFC", stripped) or word
    if arabic.is_arabic(word):
        return arabic.normalize(word)
    return word
