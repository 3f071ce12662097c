"""Highlight spans are in range, ordered, disjoint, and land on the matched characters in every script."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.text import build_query, highlight_spans
from desktop_app.core.text.fields import analyze

WORDS = ["ค้นหา", "เอกสาร", "检索", "图书馆", "図書館", "도서관", "المكتبة", "مُكتَبة", "café", "cafe\u0301", "Running",
         "\U00020000\U00020001", "Straße", "retrieval"]
FILLER = st.sampled_from([" ", "。", ", ", "และ", "的", "の", "에서 ", " و", "x", "\u0301", "\ud800", "\n", "日"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(FILLER, st.sampled_from(WORDS)), max_size=30).map("".join), st.sampled_from(WORDS))
def test_spans_are_in_range_ordered_and_disjoint(text, query):
    spans = highlight_spans(text, build_query(query))
    assert all(0 <= s < e <= len(text) for s, e in spans)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(spans))


@settings(max_examples=300, deadline=None)
@given(st.lists(FILLER, max_size=8).map("".join), st.sampled_from(WORDS), st.lists(FILLER, max_size=8).map("".join))
def test_a_word_set_in_any_text_is_highlighted_where_it_is(before, word, after):
    text = f"{before} {word} {after}"
    start = len(before) + 1
    spans = highlight_spans(text, build_query(word + " "))
    assert any(s <= start and start + len(word) <= e for s, e in spans)
    for s, e in spans:  # every mark is text that matches the query when indexed
        marked = analyze(text[s:e])
        wanted = analyze(word)
        assert any(set(marked[f]) & set(wanted[f]) for f in wanted)


def test_highlights_in_each_script():
    def marks(text: str, query: str) -> list[str]:
        return [text[s:e] for s, e in highlight_spans(text, build_query(query))]

    assert marks("ระบบให้บริการเก็บเอกสารแบบถาวร", "เอกสาร ") == ["เอกสาร"]
    assert marks("私は日本語の本を読む", "日本 ") == ["日本"]
    assert marks("우리는 도서관에서 책을", "도서관 ") == ["도서관"]
    assert marks("ذهب إلى المَكتَبةِ اليوم", "مكتبة") == ["المَكتَبةِ"]
    assert marks("A café, a cafe\u0301.", "cafe ") == ["café", "cafe\u0301"]
    assert marks("𠀀𠀁日本 and 日本", "日本 ") == ["日本", "日本"]
