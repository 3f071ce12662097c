"""Build FTS5 MATCH expressions from anything a user types. Never raises, never passes syntax through.

Every token is reduced to word characters and double-quoted, so `AND`, `NEAR`, `*`, `^`, `:`,
quotes and parentheses are searched as words (or dropped), never parsed as FTS5 syntax.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 64

# Function words that carry no meaning for ranking; dropped only when something else is left.
STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these "
    "they this to was will with what which who whom how does do did can could should would may might from has "
    "have had were been being its our your we you i me my".split()
)


def query_terms(text: str) -> list[str]:
    """The searchable words of a query, lower-cased, in order, without duplicates."""
    seen: dict[str, None] = {}
    for match in _TOKEN.finditer(text or ""):
        tok = match.group(0).lower().strip("_")
        if tok:
            seen.setdefault(tok, None)
    terms = list(seen)
    content = [t for t in terms if t not in STOPWORDS]
    return (content or terms)[:MAX_TERMS]


def build_fts_query(text: str, *, prefix_last: bool = True) -> str | None:
    """An FTS5 expression matching any of the query's words (BM25 ranks those with more of them first).

    The last word also matches as a prefix (search as you type) unless the text ends in whitespace.
    Returns None when nothing searchable is left.
    """
    terms = query_terms(text)
    if not terms:
        return None
    parts = [f'"{t}"' for t in terms]
    stripped = (text or "").rstrip()
    typing_last = prefix_last and stripped == (text or "") and _TOKEN.search(stripped[-1:] or " ") is not None
    if typing_last:
        last = _TOKEN.findall(stripped)[-1].lower().strip("_")
        if last in terms:
            # ONE phrase (FTS5 Porter-stems it: "cells"* is "cell"*), so BM25 counts the word once. The exact
            # word plus trimmed prefixes counted it up to three times: -0.05 nDCG@10 on SciFact queries typed
            # without a final full stop (bench/text_pipeline.py).
            parts[terms.index(last)] = f'"{last}"*'
    return " OR ".join(parts)


def highlight_spans(content: str, terms: list[str]) -> list[tuple[int, int]]:
    """Character spans in `content` of words that match a query term (same word, a stem of it, or a prefix)."""
    if not terms:
        return []
    spans = []
    for match in _TOKEN.finditer(content):
        word = match.group(0).lower()
        if any(_matches(word, t) for t in terms):
            spans.append((match.start(), match.end()))
    return spans


def _matches(word: str, term: str) -> bool:
    if word == term:
        return True
    if len(term) <= 3:
        return False
    stem = term[: max(3, len(term) - 2)]
    return word.startswith(stem) and (len(word) - len(stem) <= 4 or word.startswith(term))
