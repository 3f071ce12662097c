"""Where a query matched in a text: character spans in the ORIGINAL text, for every script.

A span is marked exactly when the engine would have matched that token: a word, its stem, a prefix of the
word being typed, or a CJK bigram (overlapping bigram spans merge, so 日本 inside 日本語 is one span). The
tokens are the index's (`fields.units`) and the offsets are mapped back through NFC, so they index the string
the caller holds.

Every search result is highlighted, so this is on the hot path of a query (it was 40 % of a hybrid search's time
at 100k chunks when each result went through `fields.analyze_spans` whole). It still tokenizes every word, but
the runs of letters, marks and digits that are all ASCII take one stdlib regex over the text, which finds only
the words starting as one of the query's stems does (`_ascii_heads`), and a per-query memo of the words seen:
`segment.RUN` never crosses the end of such a run, and one that is all ASCII is one `word` run whose token is its
lower-cased, stemmed text (`fields.word_unit`). Only the runs holding another character go
through `fields.units` (ICU, bigrams, folding) as before. tests/unit/core/text/test_highlight_equal.py
checks the spans are the ones the `analyze_spans` computation gave, on real text in several scripts and on
generated text.
"""

from __future__ import annotations

import functools
import re

import regex

from desktop_app.core.text.fields import units, word_unit
from desktop_app.core.text.normalize import normalize
from desktop_app.core.text.query import Query
from desktop_app.core.text.segment import LETTERS, MAX_WORD

# A run of letters, marks and digits holding one that is not ASCII (possessive, and only from a run's start: linear).
_MIXED_RUN = regex.compile(rf"(?<![{LETTERS}])[A-Za-z0-9]*+[[{LETTERS}]--[\x00-\x7f]][{LETTERS}]*", regex.V1)


def highlight_spans(text: str, query: Query) -> list[tuple[int, int]]:
    """Sorted, disjoint, non-touching (start, end) spans of `text` that match `query` (empty for no match)."""
    if not query or not text:
        return []
    matcher = _matcher(query)
    if text.isascii():  # ASCII is NFC already and has no lone surrogates: normalising would change nothing
        return _merge(matcher.ascii_marks(text, []))
    norm = normalize(text)
    mixed = [run.span() for run in _MIXED_RUN.finditer(norm.text)]
    spans = matcher.ascii_marks(norm.text, mixed)
    for run_start, run_end in mixed:
        spans.extend((run_start + start, run_start + end) for field, token, start, end
                     in units(norm.text[run_start:run_end]) if matcher.matches(field, token))
    if norm.breaks:
        spans = [(norm.original(start), norm.original(end)) for start, end in spans]
    return _merge(spans)


class _Matcher:
    """Which tokens a query matches, and which lower-cased ASCII words it matches (remembered: a query's
    results share most of their words)."""

    def __init__(self, query: Query) -> None:
        self.exact = {(t.field, t.token) for t in query.terms}
        self.prefixes = [(t.field, t.token) for t in query.terms if t.prefix]
        self.ascii_words: dict[str, bool] = {}
        self.ascii_heads = _ascii_heads(query)

    def matches(self, field: str, token: str) -> bool:
        return (field, token) in self.exact or any(f == field and token.startswith(p) for f, p in self.prefixes)

    def ascii_marks(self, text: str, mixed: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """The spans of the matching all-ASCII runs of letters and digits of `text`, those inside the runs `mixed`
        aside (sorted, disjoint: they hold all the others). Each is one word, cut to MAX_WORD characters,
        lower-cased and stemmed (`fields.word_unit`)."""
        known, spans = self.ascii_words, list[tuple[int, int]]()
        if self.ascii_heads is None:
            return spans
        skip = iter(mixed)
        run_start, run_end = next(skip, (len(text), len(text)))
        for match in self.ascii_heads.finditer(text):
            start, end = match.span()
            if start >= run_start:
                while start >= run_end:
                    run_start, run_end = next(skip, (len(text), len(text)))
                if start >= run_start:
                    continue
            word = match.group().lower()
            hit = known.get(word)
            if hit is None:
                hit = known[word] = self._ascii_word(word[:MAX_WORD])
            if hit:
                spans.append((start, min(end, start + MAX_WORD)))
        return spans

    def _ascii_word(self, token: str) -> bool:
        return self.matches(*word_unit(token))


def _ascii_heads(query: Query) -> re.Pattern[str] | None:
    """The all-ASCII words that can match the query: those starting with the first two characters of one of its
    ASCII stems (the first one of a stem that short), `i` and `y` alike; None when it has no ASCII stem. An ASCII
    word's token is its Porter stem (`fields.word_unit`), and Porter only changes a word's end: its stem keeps
    the word's first two characters but for a final `y` made `i` ("aying" -> "ai"; 238,649 SciFact and generated
    words checked, tests/unit/core/text/test_highlight_equal.py). The words this finds are still each checked
    by their stem, so it only spares the others' Python-level look-ups (most of a result's words)."""
    heads = {t.token[:2] for t in query.terms if t.field == "stems" and t.token and t.token.isascii()}
    if not heads:
        return None
    alternatives = "|".join(sorted("".join("[iy]" if c in "iy" else re.escape(c) for c in head) for head in heads))
    return re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})[A-Za-z0-9]*", re.IGNORECASE | re.ASCII)


@functools.lru_cache(maxsize=32)
def _matcher(query: Query) -> _Matcher:
    return _Matcher(query)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Union of overlapping or touching spans (bigrams overlap by one character; ICU may cut one word in
    several matched parts)."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if start >= end:
            continue
        if merged and start <= merged[-1][1]:  # touching too: Thai/CJK words matched side by side are one mark
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
