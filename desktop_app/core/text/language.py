"""The main script/language of a chunk, as a short code to store with it and filter on.

Codes: 'th', 'zh', 'ja', 'ko', 'ar', 'he', 'el', 'en' for languages that their script (or, for English,
its function words) gives away; ISO 15924 script codes where the script does not name one language:
'latn' (Latin, not English), 'cyrl', 'deva'; 'other' for any other script; 'und' for no letters at all.

The main script is the one with the most letters, except that Latin gives way to another script holding
at least a quarter of the letters: Thai, Chinese or Arabic technical writing is full of English
identifiers, and its reader still wants it filed under its own language. Chinese and Japanese share Han;
kana makes it Japanese. Only the first `SAMPLE` characters are read, so the cost is bounded.
"""

from __future__ import annotations

import regex

SAMPLE = 20_000
# Latin words are counted in C (findall); only runs of other scripts - few in Latin text, long in the rest -
# go through the Python loop.
_LATIN = regex.compile(r"\p{Latin}+")
_SCRIPTS = regex.compile(
    r"(?P<th>\p{Thai}+)|(?P<kana>[\p{Hiragana}\p{Katakana}]+)|(?P<han>\p{Han}+)|(?P<ko>\p{Hangul}+)"
    r"|(?P<ar>\p{Arabic}+)|(?P<he>\p{Hebrew}+)|(?P<el>\p{Greek}+)|(?P<cyrl>\p{Cyrillic}+)"
    r"|(?P<deva>\p{Devanagari}+)|(?P<other>[\p{L}--\p{Common}--\p{Latin}]+)", regex.V1)
_ENGLISH = frozenset(
    "the of and to in is that for it as was with be by on not he this are or his from at which but have an had "
    "they you were their one all we can her has there been if more when will would who so no".split())
LANGUAGES = ("th", "zh", "ja", "ko", "ar", "he", "el", "en", "latn", "cyrl", "deva", "other", "und")
LANGUAGE_NAMES = {"th": "Thai", "zh": "Chinese", "ja": "Japanese", "ko": "Korean", "ar": "Arabic", "he": "Hebrew",
                  "el": "Greek", "en": "English", "latn": "Latin script", "cyrl": "Cyrillic", "deva": "Devanagari",
                  "other": "Other scripts", "und": "No letters"}
RIGHT_TO_LEFT = frozenset({"ar", "he"})


def detect_language(text: str) -> str:
    """The short code of the main script/language of `text` (see the module docstring)."""
    sample = (text or "")[:SAMPLE]
    counts: dict[str, int] = {}
    latin = _LATIN.findall(sample)
    latin_words = len(latin)
    if latin:
        counts["latn"] = sum(map(len, latin))
    english = sum(map(_ENGLISH.__contains__, map(str.lower, latin)))
    for match in _SCRIPTS.finditer(sample):
        kind = match.lastgroup or "other"
        counts[kind] = counts.get(kind, 0) + len(match.group(0))
    if not counts:
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
        # English prose has 30-50 % of these words; code-heavy docs ~15 %; French/German ~5 %
        return "en" if latin_words and english * 10 >= latin_words else "latn"
    return main
