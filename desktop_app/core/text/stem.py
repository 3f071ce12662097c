"""Stems for the `stems` field: Porter for Latin-script words, a light stemmer for Arabic, none otherwise.

The Porter algorithm is the one FTS5's `porter` tokenizer applies, so English ranking keeps the behaviour
Trove was measured with. The Snowball implementation is imported by class, never through
`snowballstemmer.stemmer()`, which silently switches to PyStemmer's C build when that is installed: the
index and the query must stem with the very same code. Stems are cached (word frequencies are Zipfian);
each thread has its own stemmer object.
"""

from __future__ import annotations

import threading

import regex
from snowballstemmer.porter_stemmer import PorterStemmer

from desktop_app.core.text import arabic

_LATIN = regex.compile(r"[\p{Latin}\p{N}]+")
CACHE: dict[str, str] = {}
CACHE_SIZE = 500_000  # words; past this, stems are computed each time (a vocabulary rarely gets there)
_LOCAL = threading.local()  # a Snowball stemmer keeps its state on the instance: one per thread


def _porter(word: str) -> str:
    stemmer = getattr(_LOCAL, "porter", None)
    if stemmer is None:
        stemmer = _LOCAL.porter = PorterStemmer()
    return stemmer.stemWord(word)


def stem(word: str) -> str:
    """The stem of a folded word, or '' when its script has no stemmer here (Thai, CJK, Cyrillic, ...)."""
    cached = CACHE.get(word)
    if cached is None:
        cached = _stem(word)
        if len(CACHE) < CACHE_SIZE:  # a plain dict: twice as fast as lru_cache on the hot path
            CACHE[word] = cached
    return cached


def _stem(word: str) -> str:
    if word.isascii():
        return _porter(word) if word.isalpha() and len(word) > 2 else word
    if _LATIN.fullmatch(word):
        return _porter(word)
    if arabic.is_arabic(word):
        return arabic.light_stem(word)
    return ""
