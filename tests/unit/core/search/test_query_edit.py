"""The filters menu's edits of the query text: each replaces or removes one group of filters, reads back through the
parser, and leaves every other part of the query as typed (property-tested on the parser's own query strategy)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.search.query_edit import GROUPS, filter_term, group_values, in_group, set_group
from desktop_app.core.search.query_language import parse_query
from tests.unit.core.search.test_query_language import QUERIES

TERMS = {"type": ["type:pdf", "type:markdown"], "folder": ["folder:Notes", 'folder:"Tax papers"'],
         "lang": ["lang:th"], "tag": ["tag:work"], "file": ["file:invoice"],
         "date": ["after:2026-03", "last month", "date:2024", "before:2025-01-02"]}


def test_choosing_a_filter_replaces_the_one_typed_in_place():
    assert set_group("harbour type:pdf crane", "type", "type:markdown") == "harbour type:markdown crane"
    assert set_group("harbour crane", "type", "type:pdf") == "type:pdf harbour crane"
    assert set_group("", "tag", "tag:work") == "tag:work"
    assert set_group("type:pdf harbour type:docx", "type", "type:text") == "type:text harbour"


def test_all_dates_are_one_group():
    text = "after:2024 invoices last month before:2025-06"
    assert group_values(text, "date") == ["after:2024", "last month", "before:2025-06"]
    assert set_group(text, "date", "this year") == "this year invoices"
    assert set_group(text, "date", "") == "invoices"


def test_choosing_all_takes_every_part_of_the_group_out():
    assert set_group('type:pdf "exact words" type:md -draft', "type", "") == '"exact words" -draft'
    assert set_group("folder:Notes", "folder", "") == ""


def test_values_are_read_as_the_parser_reads_them():
    assert group_values("type:md type:PDF foo", "type") == ["markdown", "pdf"]
    assert group_values('folder:"Tax  papers" tag:#work', "folder") == ["Tax papers"]
    assert group_values("tag:#work", "tag") == ["work"]
    assert group_values("type:banana", "type") == []  # not a type: searched as words, not a filter


def test_a_term_is_quoted_when_its_value_has_spaces():
    assert filter_term("folder", "Tax papers") == 'folder:"Tax papers"'
    assert filter_term("folder", 'odd"name') == 'folder:"odd name"'
    assert filter_term("type", "pdf") == "type:pdf"
    assert group_values(set_group("x", "folder", filter_term("folder", "Tax papers")), "folder") == ["Tax papers"]


def test_a_term_after_an_unclosed_quote_still_reads_as_a_filter():
    text = 'harbour "crane type:pdf'  # the quote is never closed: `"crane` is a word
    edited = set_group(text, "folder", 'folder:"Tax papers"')
    assert group_values(edited, "folder") == ["Tax papers"]
    assert [c.text for c in parse_query(edited).chips if c.key != "folder"] == \
        [c.text for c in parse_query(text).chips]


@settings(max_examples=400, deadline=None)
@given(QUERIES, st.sampled_from(GROUPS), st.integers(min_value=0))
def test_any_query_takes_any_filter_and_keeps_its_other_parts(text, group, pick):
    terms = TERMS[group]
    term = terms[pick % len(terms)]
    others = [(c.kind, c.text) for c in parse_query(text).chips if not in_group(c, group)]
    edited = set_group(text, group, term)
    assert [c.text for c in parse_query(edited).chips if in_group(c, group)] == [term]
    after = [(c.kind, c.text) for c in parse_query(edited).chips if not in_group(c, group)]
    assert after == others or group == "date"  # a date group can eat a `last X month` that removal joined
    cleared = set_group(edited, group, "")
    assert not [c for c in parse_query(cleared).chips if in_group(c, group)]
