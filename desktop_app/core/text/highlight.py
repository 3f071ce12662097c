"""Where a query matched in a text: character spans in the ORIGINAL text, for every script.

The text goes through the very pipeline the index used (`fields.analyze_spans`), so a span is marked
exactly when the engine would have matched that token: a word, its stem, a prefix of the word being typed,
or a CJK bigram (overlapping bigram spans merge, so 日本 inside 日本語 is one span). Offsets are mapped
back through NFC, so they index the string the caller holds.
"""

from __future__ import annotations

from desktop_app.core.text.fields import analyze_spans
from desktop_app.core.text.query import Query


def highlight_spans(text: str, query: Query) -> list[tuple[int, int]]:
    """Sorted, disjoint, non-touching (start, end) spans of `text` that match `query` (empty for no match)."""
    if not query or not text:
        return []
    exact = {(t.field, t.token) for t in query.terms}
    prefixes = [(t.field, t.token) for t in query.terms if t.prefix]
    spans = [(start, end) for field, token, start, end in analyze_spans(text)
             if (field, token) in exact or any(f == field and token.startswith(p) for f, p in prefixes)]
    return _merge(spans)


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
