"""The query language: every part of the syntax, malformed parts as words, any string, and chips that round-trip."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.search.query_language import (
    ChipKind,
    DateRange,
    parse_query,
    without_chip,
)

TODAY = dt.date(2024, 6, 15)  # a Saturday


def kinds(query: str) -> list[tuple[str, str]]:
    return [(c.kind.value, c.text) for c in parse_query(query, today=TODAY).chips]


def test_each_part_of_the_syntax_is_read():
    q = parse_query('type:pdf invoice "exact phrase" -draft -"old copy" after:2024-03 before:2024-05-01 '
                    'tag:#work folder:"Tax papers" lang:TH file:report', today=TODAY)
    assert q.types == ("pdf",) and q.tags == ("work",) and q.folders == ("Tax papers",)
    assert q.langs == ("th",) and q.files == ("report",)
    assert q.required == (("exact phrase",),) and q.excluded == ("draft", "old copy")
    assert q.dates == DateRange(dt.date(2024, 3, 1), dt.date(2024, 5, 1))
    assert q.free_text == "invoice exact phrase "  # the last word is not being typed: no prefix match
    assert [c.kind for c in q.chips] == [ChipKind.FILTER, ChipKind.WORD, ChipKind.PHRASE, ChipKind.EXCLUDE,
                                         ChipKind.EXCLUDE, ChipKind.DATE, ChipKind.DATE, ChipKind.FILTER,
                                         ChipKind.FILTER, ChipKind.FILTER, ChipKind.FILTER]


def test_type_names_aliases_and_suffixes_map_to_stored_types():
    q = parse_query("type:md type:.docx type:py type:PDF type:mail", today=TODAY)
    assert q.types == ("markdown", "docx", "code", "pdf", "email")


def test_date_periods_and_relative_dates_against_today():
    assert parse_query("date:2024", today=TODAY).dates == DateRange(dt.date(2024, 1, 1), dt.date(2025, 1, 1))
    assert parse_query("date:2024-02", today=TODAY).dates == DateRange(dt.date(2024, 2, 1), dt.date(2024, 3, 1))
    assert parse_query("date:2023-12", today=TODAY).dates == DateRange(dt.date(2023, 12, 1), dt.date(2024, 1, 1))
    assert parse_query("date:2024/02/29", today=TODAY).dates == DateRange(dt.date(2024, 2, 29), dt.date(2024, 3, 1))
    assert parse_query("notes last month", today=TODAY).dates == DateRange(dt.date(2024, 5, 1), dt.date(2024, 6, 1))
    assert parse_query("Last Week", today=TODAY).dates == DateRange(dt.date(2024, 6, 3), dt.date(2024, 6, 10))
    assert parse_query("this week", today=TODAY).dates == DateRange(dt.date(2024, 6, 10), dt.date(2024, 6, 17))
    assert parse_query("this year", today=TODAY).dates == DateRange(dt.date(2024, 1, 1), dt.date(2025, 1, 1))
    jan = dt.date(2024, 1, 10)
    assert parse_query("last month", today=jan).dates == DateRange(dt.date(2023, 12, 1), dt.date(2024, 1, 1))
    assert parse_query("last year", today=jan).dates == DateRange(dt.date(2023, 1, 1), dt.date(2024, 1, 1))


def test_several_date_parts_intersect():
    q = parse_query("date:2024 after:2024-03 before:2024-04", today=TODAY)
    assert q.dates == DateRange(dt.date(2024, 3, 1), dt.date(2024, 4, 1))
    assert q.dates.holds(dt.date(2024, 3, 31)) and not q.dates.holds(dt.date(2024, 4, 1))


def test_unknown_and_malformed_parts_are_words_and_say_why():
    q = parse_query('after:banana foo:bar date:2024-13 type:nothing lang:1 tag: "" budget', today=TODAY)
    plain = [c for c in q.chips if c.kind == ChipKind.PLAIN]
    assert [c.text for c in plain] == ["after:banana", "foo:bar", "date:2024-13", "type:nothing", "lang:1", "tag:",
                                       '""']
    assert all(c.note and c.note in c.label for c in plain)
    assert not q.has_filters and not q.dates
    assert q.free_text == 'after:banana foo:bar date:2024-13 type:nothing lang:1 tag: "" budget'  # typing it


def test_every_script_passes_through_untouched():
    for text in ("ภาษาไทยง่าย", "中文搜索", "البحث", "Ελληνικά", "日本語のテキスト"):
        q = parse_query(f'{text} "{text}" -{text} tag:{text}', today=TODAY)
        assert q.free_text == f"{text} {text} "
        assert q.required == ((text,),) and q.excluded == (text,) and q.tags == (text,)


def test_or_makes_phrases_alternatives_and_words_stay_ranked():
    q = parse_query('"solar panel" OR "wind turbine" cost OR price', today=TODAY)
    assert q.required == (("solar panel", "wind turbine"),)
    assert q.free_text == "solar panel wind turbine cost price"
    assert parse_query("cost ", today=TODAY).free_text == "cost "  # a final space: the word is whole
    assert q.accepts("The wind turbine cost") and not q.accepts("solar power panel costs")


def test_phrases_match_whole_words_and_exclusions_drop_text():
    q = parse_query('"tax return" -draft', today=TODAY)
    assert q.accepts("Your TAX\n return is filed")
    assert not q.accepts("syntax returns")  # not at word edges
    assert not q.accepts("tax return (draft)")
    thai = parse_query('"ภาษีเงินได้"', today=TODAY)
    assert thai.accepts("ยื่นภาษีเงินได้บุคคลธรรมดา")  # Thai has no spaces between words: any occurrence counts


def test_relative_words_apart_are_words():
    assert kinds("last of the month") == [("word", "last"), ("word", "of"), ("word", "the"), ("word", "month")]
    assert kinds("last  month") == [("date", "last  month")]


def test_removing_a_chip_rewrites_the_query():
    text = 'type:pdf foo "a b" -bar'
    chips = parse_query(text, today=TODAY).chips
    assert without_chip(text, chips[0]) == 'foo "a b" -bar'
    assert without_chip(text, chips[2]) == "type:pdf foo -bar"
    assert without_chip(text, chips[3]) == 'type:pdf foo "a b"'


# ---- properties ------------------------------------------------------------------------------------------------

PIECES = st.sampled_from(['"', "-", " ", "  ", "\n", "\x1c", "\u3000", "OR", "or", "last", "this", "month", "week",
                          "year", "type:", "pdf", "md", "folder:", "tag:", "#", "lang:", "th", "after:", "before:",
                          "date:", "2024", "-03", "-13", "file:", "foo:", "a", "b", "ภาษา", "中文", "عربي", ":",
                          "\ud800"])
QUERIES = st.one_of(st.text(max_size=60), st.lists(PIECES, max_size=14).map("".join))


@settings(max_examples=400, deadline=None)
@given(QUERIES)
def test_any_string_parses_and_chips_are_its_spans(text):
    q = parse_query(text, today=TODAY)
    assert all(text[c.start:c.end] == c.text for c in q.chips)
    assert all(a.end <= b.start for a, b in zip(q.chips, q.chips[1:]))
    assert not text[q.chips[-1].end:].strip() if q.chips else not text.split()


@settings(max_examples=400, deadline=None)
@given(QUERIES, st.integers(min_value=0))
def test_removing_a_chip_leaves_every_other_chip(text, pick):
    chips = parse_query(text, today=TODAY).chips
    if not chips:
        return
    gone = chips[pick % len(chips)]
    rest = [(c.kind, c.text) for c in chips if c is not gone]
    after = [(c.kind, c.text) for c in parse_query(without_chip(text, gone), today=TODAY).chips]
    if after != rest:  # the one exception: `last X month` less X reads as a date, as typed that way it would
        i = next(i for i, (a, b) in enumerate(zip(after, rest)) if a != b)
        assert after[i] == (ChipKind.DATE, f"{rest[i][1]} {rest[i + 1][1]}")
        assert after[:i] + [rest[i], rest[i + 1]] + after[i + 1:] == rest
