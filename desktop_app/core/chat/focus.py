"""Focus a passage on the question: keep the run of whole sentences that shares the most words with it.

A retrieved chunk is a few hundred words; the answer to a question usually sits in one or two of its
sentences, and those share words with the question. Sending only that stretch (within a token budget)
makes the prompt several times shorter, so the first token comes sooner, and gives a small model less to
get lost in. Pure functions; bench/qa.py measured the budget.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from desktop_app.core.chat.attribution import sentences

CountTokens = Callable[[str], int]
ELLIPSIS = "…"
STEM = 5  # words compared by their first letters, so "invented" meets "invention" and "Normans" meets "Norman"
_WORD = re.compile(r"\w+")
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "after",
        "all",
        "also",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "before",
        "being",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "during",
        "each",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "made",
        "make",
        "many",
        "may",
        "more",
        "most",
        "much",
        "must",
        "no",
        "not",
        "of",
        "on",
        "one",
        "or",
        "other",
        "our",
        "out",
        "over",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "under",
        "up",
        "upon",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "would",
        "you",
    ]
)


def key_words(text: str) -> set[str]:
    """The words of `text` that carry meaning: lower case, stop words dropped, long words cut to a stem."""
    out = set()
    for w in _WORD.findall(text.lower()):
        if w not in STOPWORDS:
            out.add(w[:STEM])
    return out


def overlap(sentence: str, wanted: set[str]) -> int:
    """How many of the question's key words the sentence contains."""
    return len(key_words(sentence) & wanted)


def focus(question: str, text: str, max_tokens: int, count_tokens: CountTokens) -> str:
    """The best-matching sentence of `text` and as many neighbours as fit in `max_tokens`, in order.

    The whole text when it fits. Neighbours are added one at a time, the one sharing more of the question's
    words first (ties: the following sentence, which tends to continue the statement). A cut is marked with
    an ellipsis at that end. A first sentence longer than the budget is returned whole-word truncated.
    """
    if max_tokens <= 0 or count_tokens(text) <= max_tokens:
        return text
    spans = sentences(text)
    if not spans:
        return text
    wanted = key_words(question)
    scores = [overlap(text[a:b], wanted) for a, b in spans]
    best = max(range(len(spans)), key=lambda i: (scores[i], -i))
    lo = hi = best
    while True:
        options = [i for i in (hi + 1, lo - 1) if 0 <= i < len(spans)]
        if not options:
            break
        nxt = max(options, key=lambda i: (scores[i], i > hi))
        a, b = spans[min(lo, nxt)][0], spans[max(hi, nxt)][1]
        if count_tokens(_marked(text, a, b)) > max_tokens:
            break
        lo, hi = min(lo, nxt), max(hi, nxt)
    window = _marked(text, spans[lo][0], spans[hi][1])
    return window if count_tokens(window) <= max_tokens else _cut_words(window, max_tokens, count_tokens)


def _marked(text: str, a: int, b: int) -> str:
    body = text[a:b].strip()
    return (ELLIPSIS + " " if text[:a].strip() else "") + body + (" " + ELLIPSIS if text[b:].strip() else "")


def _cut_words(text: str, max_tokens: int, count_tokens: CountTokens) -> str:
    words = text.split()
    while words and count_tokens(" ".join(words) + " " + ELLIPSIS) > max_tokens:
        words = words[: max(len(words) * 3 // 4, len(words) - 8)] if len(words) > 16 else words[:-1]
    return " ".join(words) + " " + ELLIPSIS if words else ""
