"""Script runs, ICU word breaks with code-point offsets, the fields written for each script, and that the
fast indexing path writes exactly the tokens the span path (highlights) sees."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.text import index_fields, segment
from desktop_app.core.text.fields import analyze, analyze_title, units
from desktop_app.core.text.normalize import normalize

MIXED = st.lists(st.sampled_from([
    "ระบบค้นหาเอกสาร", "检索增强生成", "日本語の図書館", "도서관에서", "المَكتبة", "Running", "café", "e\u0301", " ", "-",
    "\U00020000", "x" * 70, "๏", "⺀", "123", "_", "\ud800", "\u0301", "Straße", "Ελλάδα",
]), max_size=30).map("".join)


def spans_of(text: str) -> list[str]:
    return [text[s:e] for _, s, e in segment.words(text)]


def test_thai_is_cut_into_words():
    assert spans_of("ระบบ memory ให้บริการเก็บเอกสารแบบถาวรและค้นหาได้") == [
        "ระบบ", "memory", "ให้", "บริการ", "เก็บ", "เอกสาร", "แบบ", "ถาวร", "และ", "ค้นหา", "ได้"]


def test_offsets_count_code_points_not_utf16_units():
    text = "𠀀𠀁日本語 word"  # two astral Han characters: 2 UTF-16 units each, 1 code point each
    assert "word" in spans_of(text)
    assert all(text[s:e] for _, s, e in segment.words(text))
    assert index_fields("", text)["grams"].split()[:3] == ["𠀀𠀁", "𠀁日", "日本"]


def test_fields_per_script():
    fields = index_fields("Notes", "Running cafés; 日本語の本; 도서관에서; والمكتبات; Москва")
    assert fields["title"] == "note"
    assert fields["stems"].split() == ["run", "cafe", "مكتب"]
    assert fields["words"].split() == ["日本語", "の", "本", "도서관에서", "москва"]
    assert "日本" in fields["grams"].split() and "도서" in fields["grams"].split()


@pytest.mark.parametrize(("sentence", "locale"), [
    ("ให้บริการเก็บเอกสารแบบถาวรและค้นหาได้", "th"), ("私は昨日市立図書館で日本語の本を三冊借りました", "root")])
def test_a_long_run_is_segmented_piece_by_piece_without_losing_or_repeating_text(sentence, locale):
    run = sentence * (3 * segment.ICU_PIECE // len(sentence))
    spans = list(segment.dictionary_words(run, locale, segment.ICU_BREAKER))
    assert spans[0][0] == 0 and spans[-1][1] == len(run)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))  # tiled: nothing lost, nothing twice
    # the piece boundaries cut no word: every word is one that segmenting the text whole also gives
    assert {run[s:e] for s, e in spans} <= set(spans_of(sentence * 3))


def test_without_icu_a_dictionary_run_is_one_word_and_cjk_still_has_bigrams(monkeypatch):
    monkeypatch.setattr(segment, "ICU_BREAKER", None)
    assert spans_of("日本語 ภาษาไทย") == ["日本語", "ภาษาไทย"]
    assert index_fields("", "日本語の本")["grams"].split() == ["日本", "本語", "語の", "の本"]


@settings(max_examples=300, deadline=None)
@given(MIXED)
def test_the_fast_index_path_writes_the_tokens_the_span_path_sees(text):
    slow: dict[str, list[str]] = {"words": [], "stems": [], "grams": []}
    for field, token, _, _ in units(normalize(text).text):
        slow[field].append(token)
    assert analyze(text) == slow


@settings(max_examples=300, deadline=None)
@given(st.one_of(MIXED, st.text(alphabet=st.characters(max_codepoint=127))))
def test_a_title_gets_the_tokens_the_span_path_sees(text):
    assert analyze_title(text) == [(field, token) for field, token, _, _ in units(normalize(text).text)]


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), MIXED), st.one_of(st.text(), MIXED))
def test_any_text_gives_whitespace_free_tokens(title, text):
    fields = index_fields(title, text)
    for value in fields.values():
        for token in value.split(" "):
            assert token == "" or (token.strip() == token and not any(c.isspace() for c in token))
        assert value == "" or "  " not in value
    assert all(len(token) <= segment.MAX_WORD for value in fields.values() for token in value.split())
