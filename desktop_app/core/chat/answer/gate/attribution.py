"""Exact-overlap attribution: an answer that cites nothing but copies a passage's words gets that passage cited.

Small models often answer with a sentence lifted from a passage and forget the [n]. Pure functions: the
answer and passage texts are compared as lower-cased word sequences; a run of at least `min_words`
consecutive words of one answer sentence found in a passage attributes that sentence to the passage
with the longest such run, and a marker [n] is put at the end of the sentence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from desktop_app.core.chat.answer.context import Passage

MIN_WORDS = 6  # shorter runs ("the president of the", "in the 10th century") are common phrases, not copying
_WORD = re.compile(r"\w+")
# A sentence ends at . ! ? followed by space or the end of the text, or at a newline; not after an initial or a
# short title ("J.", "Dr.", "St.") — answers copy names like "Dr. Mira Quell" from passages.
_BOUNDARY = re.compile(r"[.!?]+(?=\s|$)|\n")
_ABBREVIATION = re.compile(r"(?:^|\W)(?:[A-Z]|Dr|Mr|Mrs|Ms|St|Jr|Sr|Prof|Mt|No|vs|etc|e\.g|i\.e)\.$")


@dataclass(frozen=True)
class Attribution:
    """The answer with markers added, and the passage numbers they name (in order of first appearance)."""

    text: str
    cited: tuple[int, ...]


def words(text: str) -> list[str]:
    """Lower-cased word tokens."""
    return [w.lower() for w in _WORD.findall(text)]


def longest_common_run(a: Sequence[str], b: Sequence[str], asked: frozenset[str] = frozenset()) -> int:
    """Length of the longest run of words that occurs contiguously in both `a` and `b` (dynamic programming) and
    holds a word outside `asked` (a question's words found in a passage prove nothing an answer says)."""
    best = 0
    prev = [(0, False)] * (len(b) + 1)
    for x in a:
        cur = [(0, False)] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            if x == y:
                length, new = prev[j - 1]
                cur[j] = (length + 1, new or x not in asked)
                if cur[j][1]:
                    best = max(best, cur[j][0])
        prev = cur
    return best


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) character spans of the sentences of `text`; together they cover all of it, in order."""
    spans, start = [], 0
    for m in _BOUNDARY.finditer(text):
        if m.group(0) != "\n" and _ABBREVIATION.search(text[max(0, m.start() - 6):m.end()]):
            continue
        spans.append((start, m.end()))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def best_source(sentence: str, passages: Sequence[Passage], index: dict[int, list[str]], min_words: int) -> int | None:
    """The passage sharing the longest run (≥ min_words) of words with `sentence`; the earliest on ties."""
    needle = words(sentence)
    best_n, best_len = None, 0
    if len(needle) < min_words:
        return None
    for p in passages:
        run = longest_common_run(needle, index[p.n])
        if run >= min_words and run > best_len:
            best_n, best_len = p.n, run
    return best_n


def attribute(text: str, passages: Sequence[Passage], *, min_words: int = MIN_WORDS) -> Attribution:
    """Add [n] after each sentence of `text` that copies at least `min_words` consecutive words of passage n.

    Only the markers are added: removing them gives back `text` exactly.
    """
    index = {p.n: words(p.content) for p in passages}
    out: list[str] = []
    cited: dict[int, None] = {}  # an ordered set
    last = 0
    for start, end in sentences(text):
        n = best_source(text[start:end], passages, index, min_words)
        if n is None:
            continue
        body = text[start:end].rstrip()
        stop = len(body) - len(body.rstrip(".!?")) if body.endswith((".", "!", "?")) else 0
        cut = start + len(body) - stop
        out += [text[last:cut], f" [{n}]"]
        last = cut
        cited.setdefault(n, None)
    out.append(text[last:])
    return Attribution("".join(out), tuple(cited))
