"""Stems for the `stems` field: Porter for Latin-script words, a light stemmer for Arabic, none otherwise.

The Porter algorithm is the one FTS5's `porter` tokenizer applies, so English ranking keeps the behaviour
Trove was measured with. It runs in PyStemmer's C build of Snowball (a dependency; 13x faster than the pure
Python `snowballstemmer`, which took 85 % of the keyword phase's time on SciFact) and falls back to the pure
Python one, imported by class, where PyStemmer cannot be installed. The index and the query must stem alike:
both are generated from the same Snowball source and gave identical stems for all 29,701 words of SciFact
(tests/unit/core/text/test_stem.py compares them). Stems are cached (word frequencies are Zipfian); each
thread has its own stemmer object.
"""

from __future__ import annotations

import threading
from typing import Any

import regex
from snowballstemmer.porter_stemmer import PorterStemmer

from desktop_app.core.text import arabic

_LATIN = regex.compile(r"[\p{Latin}\p{N}]+")
CACHE: dict[str, str] = {}
CACHE_SIZE = 500_000  # words; past this, stems are computed each time (a vocabulary rarely gets there)
_LOCAL = threading.local()  # a Snowball stemmer keeps its state on the instance: one per thread


def _new_porter() -> Any:
    try:
        import Stemmer  # PyStemmer

        return Stemmer.Stemmer("porter", 0)  # no cache of its own: CACHE below is shared by all threads
    except (ImportError, KeyError):
        return PorterStemmer()


def _porter(word: str) -> str:
    stemmer = getattr(_LOCAL, "porter", None)
    if stemmer is None:
        stemmer = _LOCAL.porter = _new_porter()
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
