"""What the index stores for a text: space-separated tokens per field, the same for every database engine.

Fields:

* `stems`: words of a script with a stemmer, case-folded, accents and Arabic spelling normalised
  (`normalize.fold_word`), then stemmed: Porter for Latin (`Running` → `run`, `café` → `cafe`), light10 for
  Arabic (`والمكتبات` → `مكتب`).
* `words`: every other word, folded: Thai/Chinese/Japanese words as ICU cut them, a Korean word as written,
  Cyrillic, Greek, Devanagari, ... Each word is in exactly one of `stems` and `words`.
* `grams`: overlapping bigrams of every Han/Kana/Hangul run (`日本語` → `日本 本語`; a one-character run is
  kept as is), so a query finds words inside longer words and across ICU's cuts.

Every token is letters, marks and digits only, so any whitespace tokenizer (FTS5 `ascii`, PostgreSQL
`simple` via its parser or `array_to_tsvector`) indexes exactly these tokens.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import cast

import regex

from desktop_app.core.text import segment
from desktop_app.core.text.normalize import Normalized, fold_word, normalize
from desktop_app.core.text.stem import CACHE as STEM_CACHE
from desktop_app.core.text.stem import stem

FIELDS = ("words", "stems", "grams")
_ASCII_WORD = re.compile(r"[a-z0-9]+")  # the letters and digits of lower-cased ASCII text
_LETTERS = regex.compile(rf"[{segment.LETTERS}]+")  # segment.RUN's runs never cross the end of one of these
_DICTIONARY_SCRIPT = regex.compile(rf"[{segment.CJK}{segment.SEA}]")

Unit = tuple[str, str, int, int]  # (field, token, start, end); offsets in the normalised text


def units(text: str) -> Iterator[Unit]:
    """Every token of NFC `text` with its field and span, in text order within each run."""
    for kind, start, end in segment.runs(text):
        if kind == "word":
            yield from _word_units(text, start, min(end, start + segment.MAX_WORD))
            continue
        for _, w_start, w_end in segment.words(text[start:end]):
            yield from _word_units(text, start + w_start, start + w_end)
        if kind == "cjk":
            yield from _bigrams(text, start, end)


def _word_units(text: str, start: int, end: int) -> Iterator[Unit]:
    """A word's one token: its stem where its script has a stemmer (Latin, Arabic), else the folded word."""
    token = fold_word(text[start:end])[:segment.MAX_WORD]  # folding can lengthen a word (ß → ss)
    if token:
        yield (*word_unit(token), start, end)


def word_unit(token: str) -> tuple[str, str]:
    """A folded word's (field, token): its stem where its script has a stemmer, else the word itself."""
    stemmed = stem(token)
    return ("stems", stemmed) if stemmed else ("words", token)


def _bigrams(text: str, start: int, end: int) -> Iterator[Unit]:
    if end - start == 1:
        yield "grams", text[start], start, end
        return
    for i in range(start, end - 1):
        yield "grams", text[i:i + 2], i, i + 2


def analyze(text: str) -> dict[str, list[str]]:
    """The tokens of `text` per field, in text order (normalised first; never raises on any string).

    The same tokens as `units`, without spans, and fast where text allows it: ASCII text is one `findall`
    and cached stems; elsewhere only a run of letters holding Thai/CJK characters goes through ICU."""
    norm = normalize(text).text
    out: dict[str, list[str]] = {field: [] for field in FIELDS}
    if norm.isascii():
        out["stems"] = _ascii_stems(norm)
        return out
    stems, cached = out["stems"], STEM_CACHE.get
    for piece in _LETTERS.findall(norm):
        if piece.isascii():
            word = piece[:segment.MAX_WORD].lower()
            stems.append(cached(word) or stem(word))
            continue
        found = _word_units(piece, 0, min(len(piece), segment.MAX_WORD)) if _DICTIONARY_SCRIPT.search(
            piece) is None else units(piece)  # a piece without Thai/CJK is one `word` run, as segment.runs finds
        for field, token, _, _ in found:
            out[field].append(token)
    return out


def _ascii_stems(norm: str) -> list[str]:
    """The tokens of normalised ASCII text: all of them stems (one `findall`, and stems cached)."""
    words = _ASCII_WORD.findall(norm.lower())
    stems: list[str | None] = list(map(STEM_CACHE.get, words))
    if None in stems:  # a word not stemmed before (a stem is never empty for ASCII)
        return [s or stem(w[:segment.MAX_WORD]) for s, w in zip(stems, words, strict=True)]
    return cast(list[str], stems)  # no None left


def analyze_title(title: str) -> list[tuple[str, str]]:
    """(field, token) of every token of a title, in text order (the `title` column mixes the fields)."""
    norm = normalize(title).text
    if norm.isascii():
        return [("stems", token) for token in _ascii_stems(norm)]
    return [(field, token) for field, token, _, _ in units(norm)]


def analyze_spans(text: str) -> Iterator[Unit]:
    """Like `units`, but for any string and with spans in `text` itself (for highlights)."""
    norm: Normalized = normalize(text)
    for field, token, start, end in units(norm.text):
        yield field, token, norm.original(start), norm.original(end)
