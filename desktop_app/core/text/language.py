"""The main script/language of a chunk, as a short code to store with it and filter on.

Codes: 'th', 'zh', 'ja', 'ko', 'ar', 'he', 'el', 'en' for languages that their script (or, for English,
its function words) gives away; ISO 15924 script codes where the script does not name one language:
'latn' (Latin, not English), 'cyrl', 'deva'; 'other' for any other script; 'und' (undetermined) for text with
fewer than `MIN_LETTERS` letters, and for Latin letters that name no language.

Only letters decide. Latin-script text is English when English function words are a tenth of its words, and
another language ('latn') only on evidence of one: its function words (French, German, Spanish, ...) or letters
with diacritics in a twentieth of its words. Server logs, CSV exports, code, tables of numbers and short lines
like "Backup completed" have neither, so they are 'und' - not "another language" (which would move an English
library onto the multilingual model, core/embed/auto.py).

The main script is the one with the most letters, except that Latin gives way to another script holding
at least a quarter of the letters: Thai, Chinese or Arabic technical writing is full of English
identifiers, and its reader still wants it filed under its own language. Chinese and Japanese share Han;
kana makes it Japanese. Only the first `SAMPLE` characters are read, so the cost is bounded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import regex

SAMPLE = 20_000
MIN_LETTERS = 12  # fewer letters than this say nothing about a language
# A Han, kana or Hangul character carries about as much as a short word: it counts as this many letters, so a
# one-line Chinese note (about ten characters) is Chinese, not undetermined.
IDEOGRAPH_LETTERS = 3
# Latin words are counted in C (findall); only runs of other scripts - few in Latin text, long in the rest -
# go through the Python loop.
_LATIN = regex.compile(r"\p{Latin}+")
# In ASCII text the Latin letters are [A-Za-z] and no other script occurs, so the other scripts need no pass at
# all (most chunks of most libraries). Its words are what `[a-z]+` finds in the lower-cased text: one
# bytes.translate (letters lower-cased, every other byte a space) and a split find them in half the time.
_ASCII_WORD_BYTES = bytes(b | 0x20 if chr(b).isalpha() else 0x20 for b in range(128)) + b" " * 128
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_SCRIPTS = regex.compile(
    r"(?P<th>\p{Thai}+)|(?P<kana>[\p{Hiragana}\p{Katakana}]+)|(?P<han>\p{Han}+)|(?P<ko>\p{Hangul}+)"
    r"|(?P<ar>\p{Arabic}+)|(?P<he>\p{Hebrew}+)|(?P<el>\p{Greek}+)|(?P<cyrl>\p{Cyrillic}+)"
    r"|(?P<deva>\p{Devanagari}+)|(?P<other>[\p{L}--\p{Common}--\p{Latin}]+)", regex.V1)
_ENGLISH = frozenset(
    "the of and to in is that for it as was with be by on not he this are or his from at which but have an had "
    "they you were their one all we can her has there been if more when will would who so no".split())
# Function words of common Latin-script languages (none of them English, none a one-letter loop variable).
_OTHER_LATIN = frozenset(
    "le la les des du une est et que qui dans pour pas sur au aux avec ce cette sont il elle nous vous ils "  # fr
    "der die das und ist nicht ein eine zu den von mit sich auf für im dem werden auch es sind wird "  # de
    "de los las del por con para una más pero sus como "  # es, fr, pt, nl
    "di che è della gli sono nel alla questo "  # it
    "os da dos das em não uma ao mais "  # pt
    "het een van dat niet ik je zijn voor met dit ze wordt "  # nl
    "och att det som är på för av inte till har jag ikke og af "  # sv, da, no
    "się nie jest że jak ale "  # pl
    "je na že jako "  # cs
    "ve bir bu için ile çok "  # tr
    "yang dan ini itu dengan untuk dari dalam tidak adalah".split()) - _ENGLISH  # id, ms
_ENGLISH_BYTES = frozenset(word.encode() for word in _ENGLISH)
_OTHER_BYTES = frozenset(word.encode() for word in _OTHER_LATIN)
LANGUAGES = ("th", "zh", "ja", "ko", "ar", "he", "el", "en", "latn", "cyrl", "deva", "other", "und")
LANGUAGE_NAMES = {"th": "Thai", "zh": "Chinese", "ja": "Japanese", "ko": "Korean", "ar": "Arabic", "he": "Hebrew",
                  "el": "Greek", "en": "English", "latn": "Latin script", "cyrl": "Cyrillic", "deva": "Devanagari",
                  "other": "Other scripts", "und": "Undetermined"}
RIGHT_TO_LEFT = frozenset({"ar", "he"})


def detect_language(text: str) -> str:
    """The short code of the main script/language of `text` (see the module docstring)."""
    sample = (text or "")[:SAMPLE]
    if sample.isascii():
        words = sample.encode("ascii").translate(_ASCII_WORD_BYTES).split()
        return _english_or_not(words, english=_ENGLISH_BYTES, other=_OTHER_BYTES) if sum(
            map(len, words)) >= MIN_LETTERS else "und"
    counts: dict[str, int] = {}
    latin = _LATIN.findall(sample)
    if latin:
        counts["latn"] = sum(map(len, latin))
    counts.update(script_counts(sample))
    syllabic = counts.get("han", 0) + counts.get("kana", 0) + counts.get("ko", 0)
    if sum(counts.values()) + (IDEOGRAPH_LETTERS - 1) * syllabic < MIN_LETTERS:
        return "und"
    if "han" in counts or "kana" in counts:  # one script family: kana (any real amount) makes it Japanese
        cjk = counts.pop("han", 0) + counts.get("kana", 0)
        counts["ja" if counts.pop("kana", 0) * 10 >= cjk else "zh"] = cjk
    total = sum(counts.values())
    others = {k: v for k, v in counts.items() if k != "latn"}
    main = max(counts, key=counts.__getitem__)
    if main == "latn" and others:
        runner_up = max(others, key=others.__getitem__)
        if others[runner_up] * 4 >= total:
            main = runner_up
    if main == "latn":
        return _latin_language(latin)
    return main


def script_counts(sample: str) -> dict[str, int]:
    """Letters of each script but Latin, in order of first appearance. No ASCII character belongs to any of them
    and each one ends a run, so only the non-ASCII runs are scanned, a space between them (in Latin text with a
    few Greek letters or accents, a small part of it)."""
    counts: dict[str, int] = {}
    for match in _SCRIPTS.finditer(" ".join(_NON_ASCII.findall(sample))):
        kind = match.lastgroup or "other"
        counts[kind] = counts.get(kind, 0) + len(match.group(0))
    return counts


def _latin_language(words: list[str]) -> str:
    """'en', 'latn' (another language, on evidence) or 'und' for the Latin words of a text."""
    marked = len(words) - sum(map(str.isascii, words))
    return _english_or_not(list(map(str.lower, words)), marked)


def _english_or_not(lowered: Sequence[str | bytes], marked: int = 0, *, english: frozenset = _ENGLISH,
                    other: frozenset = _OTHER_LATIN) -> str:
    """_latin_language of lower-cased words, `marked` of them with a diacritic (the function word sets in the
    words' type: str, or bytes for ASCII text)."""
    # English prose has 30-50 % of these words; code-heavy docs ~15 %; French/German ~5 %
    if sum(map(english.__contains__, lowered)) * 10 >= len(lowered):
        return "en"
    others = sum(map(other.__contains__, lowered))
    return "latn" if others * 10 >= len(lowered) or marked * 20 >= len(lowered) else "und"
