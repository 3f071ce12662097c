"""A search query through the same pipeline as the index, as an engine-neutral set of OR'ed terms.

`build_query` never raises and never passes syntax through: whatever the user typed (operators, quotes,
lone surrogates, 5 MB of one letter) becomes at most `MAX_TERMS` plain tokens, each searched in one field.
Renderers (`render.py`) turn the Query into FTS5 MATCH or PostgreSQL tsquery text.

Each distinct query word is ONE term — its stem, or the folded word where its script has no stemmer — with a
`weight`: how many times the query says it, up to `MAX_REPEAT`. Renderers that can weight a term do (FTS5
repeats the phrase, so bm25() counts a word said three times three times, as BM25's query side does); a long
pasted paragraph is then ranked by what it is about, not by every word it mentions once. A query of fewer
than `WEIGHTED_FROM` distinct terms (a typed question, a one-line claim) counts every word once.

The word being typed (the last one, when the text does not end in a space or punctuation) matches as a
prefix of that token: `cells` → `cell`*, `retrie` → `retri`* (finds `retriev`). Searching it
both exactly and as several prefixes, as fts_query did, counted the last word up to three times and cost
0.05 nDCG@10 on SciFact queries typed without a final full stop (bench/text_pipeline.py).
English function words are left out when anything else is left (they barely move BM25 but cost time).
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from desktop_app.core.text.fields import units
from desktop_app.core.text.normalize import fold_word, normalize

MAX_TERMS = 64
MAX_REPEAT = 32  # a word's weight stops growing here: within MAX_QUERY_CHARS, all but never reached
WEIGHTED_FROM = 16  # distinct terms: a shorter query counts every word once (short claims lost 0.005 on SciFact train)
MAX_QUERY_CHARS = 2000  # a pasted page is searched by its beginning; work stays bounded
MIN_PREFIX = 2  # a one-letter Latin/Arabic/Thai prefix matches most of the vocabulary; a Han character does not
_WORD_CHAR = regex.compile(r"[\p{L}\p{M}\p{N}]")
_IDEOGRAPHIC = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]")

STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these "
    "they this to was will with what which who whom how does do did can could should would may might from has "
    "have had were been being its our your we you i me my".split()
)


@dataclass(frozen=True)
class Term:
    """One token to look for in one field; `prefix` also matches longer tokens that start with it."""

    field: str
    token: str
    prefix: bool = False
    weight: int = 1  # how many times the query says it (1..MAX_REPEAT)


@dataclass(frozen=True)
class Query:
    """Terms OR'ed together: a text matches when any term does; ranking rewards matching more of them."""

    terms: tuple[Term, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.terms)

    def tokens(self, field: str) -> tuple[str, ...]:
        """The tokens searched in one field, in query order."""
        return tuple(t.token for t in self.terms if t.field == field)


def build_query(text: str, *, prefix_last: bool = True, drop_stopwords: bool = True) -> Query:
    """The Query for what a user typed (see the module docstring). Empty when nothing searchable is left."""
    norm = normalize((text or "")[:MAX_QUERY_CHARS]).text
    found = list(units(norm))
    if drop_stopwords:
        found = _without_stopwords(norm, found)
    typing_end = len(norm) if prefix_last and norm and _WORD_CHAR.match(norm[-1]) else -1
    counts: dict[Term, int] = {}
    for field, token, _, end in found:
        term = Term(field, token, _is_prefix(field, token, end == typing_end))
        if term in counts:
            counts[term] += 1
        elif len(counts) < MAX_TERMS:
            counts[term] = 1
    if len(counts) < WEIGHTED_FROM:
        return Query(tuple(counts))
    return Query(tuple(Term(t.field, t.token, t.prefix, min(n, MAX_REPEAT)) for t, n in counts.items()))


def _is_prefix(field: str, token: str, typing: bool) -> bool:
    if field == "grams":
        return len(token) == 1  # a lone Han/Kana/Hangul character: any bigram starting with it
    if not typing:
        return False
    return len(token) >= MIN_PREFIX or _IDEOGRAPHIC.match(token) is not None


def _without_stopwords(text: str, found: list) -> list:
    """Drop the tokens of English function words, unless nothing else would be left."""
    kept = [u for u in found if u[0] == "grams" or fold_word(text[u[2]:u[3]]) not in STOPWORDS]
    return kept or found
