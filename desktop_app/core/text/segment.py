"""Script-aware word segmentation of NFC text, with code-point offsets.

Text is first cut into runs of one kind:

* `cjk`: Han, Hiragana, Katakana and Hangul. Chinese and Japanese have no spaces between words; ICU's
  dictionary word breaks split the run into words, and `fields` adds overlapping bigrams so a word that
  ICU did not cut out (日本 inside 日本語) is still found. A Hangul-only run is one Korean word (eojeol)
  as written between spaces; its particles are reached through the bigrams too.
* `sea`: Thai, Lao, Khmer and Myanmar, also written without spaces; ICU's dictionaries split them.
* `word`: every other run of letters, marks and digits (Latin, Arabic, Cyrillic, Greek, Devanagari, ...),
  cut at anything else, as FTS5's unicode61 does. Marks stay inside words (Arabic tashkeel, Indic vowels).

ICU (the icu4py wheel) counts offsets in UTF-16 units; it is only ever asked for the segment strings, whose
Python lengths give code-point offsets. Runs longer than `ICU_PIECE` are segmented piece by piece, each
piece restarting a few words before the end of the one before, so work and memory stay linear in the input.
Without icu4py (a platform with no wheel) a `sea`/`cjk` run stays one token; bigrams still find CJK words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import regex

from desktop_app.core.log import get_logger

log = get_logger("ingest")

CJK = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\u30fc\u3099\u309a\uff70\uff9e\uff9f"
SEA = r"\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}"
LETTERS = r"\p{L}\p{M}\p{N}"  # only these make words; the scripts' symbols (radicals, ๏) separate them
RUN = regex.compile(
    rf"(?P<cjk>[[{CJK}]&&[{LETTERS}]]+)|(?P<sea>[[{SEA}]&&[{LETTERS}]]+)|(?P<word>[[{LETTERS}]--[{CJK}{SEA}]]+)",
    regex.V1)
_HANGUL_ONLY = regex.compile(r"[\p{Hangul}]+")
_LEADING_MARK = regex.compile(r"\p{M}")
_HAS_LETTER = regex.compile(r"[\p{L}\p{N}]")

ICU_PIECE = 4096  # characters handed to ICU at once
REDO_WORDS = 4  # words before a piece boundary that are segmented again with the next piece
MAX_WORD = 64  # longer words (base64, hashes, a 5 MB run of one letter) are cut to this many characters

Breaker = Callable[[str, str], Iterator[str]]


def _load_icu() -> tuple[Breaker | None, str]:
    try:
        from icu4py import icu_version
        from icu4py.breakers import WordBreaker
    except ImportError as exc:  # no wheel for this platform: degrade, and say so once
        log.warning("ICU word breaks unavailable (%s): Thai/Chinese/Japanese runs are indexed whole", exc)
        return None, "none"
    return (lambda text, locale: iter(WordBreaker(text, locale))), str(icu_version)


ICU_BREAKER, ICU_VERSION = _load_icu()


def runs(text: str) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) of each run of word characters; kind is 'cjk', 'sea' or 'word'."""
    for match in RUN.finditer(text):
        yield match.lastgroup or "word", match.start(), match.end()


def words(text: str, breaker: Breaker | None = None) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) of every word in NFC `text`: `word` runs whole, `cjk`/`sea` runs split by ICU."""
    breaker = breaker or ICU_BREAKER
    for kind, start, end in runs(text):
        if kind == "word" or breaker is None or (kind == "cjk" and _HANGUL_ONLY.fullmatch(text, start, end)):
            yield kind, start, min(end, start + MAX_WORD)
            continue
        locale = "th" if kind == "sea" else "root"
        for w_start, w_end in dictionary_words(text[start:end], locale, breaker):
            yield kind, start + w_start, start + min(w_end, w_start + MAX_WORD)


def dictionary_words(run: str, locale: str, breaker: Breaker) -> Iterator[tuple[int, int]]:
    """Word spans (code points) in one run of a script written without spaces, ICU_PIECE characters at a time."""
    pos, n = 0, len(run)
    while pos < n:
        end = _cut(run, pos + ICU_PIECE)
        spans = _spans(run[pos:end], pos, locale, breaker)
        if end < n and len(spans) > 1:
            # The last words may be cut wrongly (the dictionary engines look a few words ahead): segment them
            # again at the start of the next piece.
            del spans[max(1, len(spans) - REDO_WORDS):]
            end = spans[-1][1]
        for w_start, w_end in spans:
            if _HAS_LETTER.search(run, w_start, w_end):
                yield w_start, w_end
        pos = end


def _cut(run: str, at: int) -> int:
    """A piece end at or after `at` that does not separate a letter from its combining marks."""
    n = len(run)
    if at >= n:
        return n
    while at < n and _LEADING_MARK.match(run, at):
        at += 1
    return at


def _spans(piece: str, offset: int, locale: str, breaker: Breaker) -> list[tuple[int, int]]:
    spans, pos = [], offset
    for segment in breaker(piece, locale):
        if segment:
            spans.append((pos, pos + len(segment)))
            pos += len(segment)
    if pos != offset + len(piece):  # a breaker that does not tile its input is a bug there; never lose text
        log.warning("word breaker returned %d of %d characters; using the run whole", pos - offset, len(piece))
        return [(offset, offset + len(piece))]
    return spans
