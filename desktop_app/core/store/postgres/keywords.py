"""The one seam between Trove's text processing and the server's full-text index.

The engine indexes pre-processed text: each field is a string of space-separated tokens, and a query is a
list of OR'ed terms (field, token, prefix). The server never segments or stems anything itself: tokens are
written straight into a tsvector literal and the query straight into a tsquery literal (Postgres's `simple`
behaviour, without its parser), so whatever the pipeline produces is matched exactly, and no input can raise.

INTERIM pipeline (until desktop_app.core.text lands): lower-cased \\w+ words with English Snowball stems.
To switch, replace only `field_tokens` and `query_terms` below with calls into core.text (its field text and
its query object's terms); the literal builders and everything in search.py / documents.py stay as they are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

from desktop_app.core.search.fts_query import query_terms as query_words

TITLE, TEXT = "title", "text"
WEIGHTS = {TITLE: "A", TEXT: "D"}  # tsvector weight labels per field (ts_rank weighs them)
MAX_POSITION = 16383  # the largest position a tsvector stores
MAX_POSITIONS_PER_TOKEN = 255

_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Term:
    """One OR'ed query term: a token, in one field (None: any field), optionally as a prefix."""

    field: str | None
    token: str
    prefix: bool = False


# ---- the pipeline (interim: swap these two for core.text) -----------------------------------------------


@lru_cache(maxsize=1)
def _stemmer() -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _stemmer().stemWord(word)


def field_tokens(text: str) -> str:
    """A field's text as space-separated index tokens (interim: lower-cased words, English stems)."""
    return " ".join(_stem(w) for w in (m.group(0).lower().strip("_") for m in _WORD.finditer(text or "")) if w)


def query_terms(query: str) -> list[Term]:
    """The OR'ed terms of a query in any field (interim: stems of its content words; the word still being
    typed, when the text does not end in a space, also matches as a prefix, trimmed as the stemmer would)."""
    words = query_words(query)
    if not words:
        return []
    terms = [Term(None, _stem(w)) for w in words]
    stripped = (query or "").rstrip()
    if stripped == (query or "") and _WORD.search(stripped[-1:] or " "):
        last = _WORD.findall(stripped)[-1].lower().strip("_")
        if last in words:
            terms += [Term(None, p, True) for p in _typing_prefixes(last)]
    return list(dict.fromkeys(terms))


def _typing_prefixes(word: str) -> list[str]:
    """Prefixes for a word being typed: stemming trims letters ("generation" → "generat"), so "generati" must
    also try "generat"* — up to two letters trimmed, never below four; words with digits are kept whole."""
    if not word.isalpha():
        return [word]
    return [word[: len(word) - cut] for cut in range(3) if cut == 0 or len(word) - cut >= 4]


# ---- the engine side: literals the server takes as they are ----------------------------------------------


def _quote(token: str) -> str:
    """A lexeme in tsvector/tsquery literal syntax: single-quoted, quotes doubled, backslashes escaped."""
    return "'" + token.replace("\\", "\\\\").replace("'", "''") + "'"


def tsvector_literal(fields: Sequence[tuple[str, str]]) -> str:
    """A tsvector literal of (field, space-separated tokens) pairs: positions run on across fields, each
    position labelled with its field's weight."""
    positions: dict[str, list[str]] = {}
    pos = 0
    for field, tokens in fields:
        weight = WEIGHTS.get(field, "D")
        label = "" if weight == "D" else weight
        for token in tokens.split():
            pos = min(pos + 1, MAX_POSITION)
            slots = positions.setdefault(token, [])
            if len(slots) < MAX_POSITIONS_PER_TOKEN:
                slots.append(f"{pos}{label}")
    return " ".join(f"{_quote(tok)}:{','.join(slots)}" for tok, slots in positions.items())


def chunk_terms(title_tokens: str, text_tokens: str) -> str:
    """The tsvector literal of one chunk: its document's title tokens (weight A), then its own text."""
    return tsvector_literal([(TITLE, title_tokens), (TEXT, text_tokens)])


def tsquery_literal(terms: Sequence[Term]) -> str | None:
    """A tsquery literal OR'ing the terms (None when there is nothing to search)."""
    parts = []
    for term in terms:
        if not term.token:
            continue
        suffix = ("*" if term.prefix else "") + (WEIGHTS[term.field] if term.field in WEIGHTS else "")
        parts.append(_quote(term.token) + (f":{suffix}" if suffix else ""))
    return " | ".join(dict.fromkeys(parts)) or None
