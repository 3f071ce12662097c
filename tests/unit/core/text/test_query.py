"""build_query never raises and never passes syntax through; its FTS5 rendering is valid for any input
against a real FTS5 table; prefixes, stopwords and the tsquery rendering."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.store.sqlite.connect import connect
from desktop_app.core.text import Query, Term, build_query, fts5_rank, fts5_schema, index_fields, to_fts5, to_tsquery
from desktop_app.core.text.query import MAX_TERMS

NASTY = ['"', '""', "'", "AND", "OR", "NOT", "NEAR", "NEAR(a b)", "a AND", "*", "^", "^a", "a*", "(", ")", "(a OR",
         "col:val", ":", "title:x", "words:x", "{words}: x", "🙂🙂", "-", "+", "a -b", "\x00", "\\", 'a"b', " ", "",
         "\ud800", "a\udfffb", "x" * 10_000, "word " * 2000, "日" * 5000, "ก" * 5000, "ـــ", "\u0301"]


@pytest.fixture(scope="module")
def conn():
    c = connect(":memory:")
    c.execute(fts5_schema("t"))
    for rowid, (title, text) in enumerate([("notes", "retrieval augmented generation with sqlite"),
                                           ("and or not", "NEAR the column: value 日本語 المكتبة ภาษาไทย")], 1):
        f = index_fields(title, text)
        c.execute("INSERT INTO t (rowid, title, words, stems, grams) VALUES (?, ?, ?, ?, ?)",
                  (rowid, f["title"], f["words"], f["stems"], f["grams"]))
    yield c
    c.close()


def hits(conn, text: str) -> list[int]:
    match = to_fts5(build_query(text))
    if match is None:
        return []
    return [r[0] for r in conn.execute(f"SELECT rowid FROM t WHERE t MATCH ? ORDER BY {fts5_rank('t')}", (match,))]


@pytest.mark.parametrize("text", NASTY)
def test_nasty_queries_never_raise(conn, text):
    hits(conn, text)
    assert len(build_query(text).terms) <= MAX_TERMS


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_any_text_never_raises_and_renders_valid_fts5(conn, text):
    query = build_query(text)
    hits(conn, text)
    assert (to_fts5(query) is None) == (not query) == (to_tsquery(query) is None)


def test_operators_are_searched_as_words(conn):
    assert hits(conn, "NEAR") == [2]
    assert hits(conn, "column: value") == [2]


def test_the_word_being_typed_is_one_prefix_term(conn):
    assert build_query("stem cells") == Query((Term("stems", "stem"), Term("stems", "cell", prefix=True)))
    assert build_query("stem cells ") == Query((Term("stems", "stem"), Term("stems", "cell")))
    assert hits(conn, "retrie") == [1]  # Porter stem "retri"* finds "retriev"
    assert hits(conn, "retrie ") == []  # a finished word is not a prefix
    assert hits(conn, "sqli") == [1]


def test_a_lone_han_character_is_a_prefix_of_the_bigrams():
    assert Term("grams", "日", prefix=True) in build_query("日").terms


def test_stopwords_are_dropped_unless_nothing_else_is_left():
    assert [t.token for t in build_query("what is the retrieval").terms] == ["retriev"]
    assert [t.token for t in build_query("the").terms] == ["the"]


def test_renderings():
    query = Query((Term("stems", "cell", prefix=True), Term("grams", "日本"), Term("words", "it's")))
    assert to_fts5(query) == '{title stems} : "cell"* OR {title grams} : "日本" OR {title words} : "it\'s"'
    assert to_tsquery(query) == "'cell':*AC | '日本':AD | 'it''s':AB"
    assert to_fts5(Query()) is None and to_tsquery(Query()) is None
