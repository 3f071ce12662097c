"""A word the query repeats weighs more (up to MAX_REPEAT), in the Query and in real FTS5 bm25() order; long and
arbitrary queries never raise and stay within the term and phrase caps."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.store.sqlite.connect import connect
from desktop_app.core.text import Query, Term, build_query, fts5_rank, fts5_schema, index_fields, to_fts5, to_tsquery
from desktop_app.core.text.query import MAX_QUERY_CHARS, MAX_REPEAT, MAX_TERMS, WEIGHTED_FROM
from desktop_app.core.text.render import tsquery_groups

LONG = " ".join(f"topic{i}" for i in range(WEIGHTED_FROM)) + " "  # enough distinct words for weights to count

DOCS = [("one", "cell biology of the cell: a cell divides, cell walls and the membrane"),
        ("two", "membrane transport across a membrane; membrane proteins and the membrane potential of a cell")]


@pytest.fixture(scope="module")
def conn():
    c = connect(":memory:")
    c.execute(fts5_schema("t"))
    for rowid, (title, text) in enumerate(DOCS, 1):
        f = index_fields(title, text)
        c.execute("INSERT INTO t (rowid, title, words, stems, grams) VALUES (?, ?, ?, ?, ?)",
                  (rowid, f["title"], f["words"], f["stems"], f["grams"]))
    yield c
    c.close()


def ranked(conn, text: str) -> list[int]:
    match = to_fts5(build_query(text))
    assert match is not None
    return [r[0] for r in conn.execute(f"SELECT rowid FROM t WHERE t MATCH ? ORDER BY {fts5_rank('t')}", (match,))]


def weights(text: str) -> dict[str, int]:
    return {t.token: t.weight for t in build_query(LONG + text).terms if not t.token.startswith("topic")}


def test_a_repeated_word_is_one_term_with_its_count():
    assert weights("cell cells membrane Cell. ") == {"cell": 3, "membran": 1}
    assert build_query(LONG + "stem cells stem ").terms[-2:] == (Term("stems", "stem", weight=2), Term("stems", "cell"))


def test_a_short_query_counts_every_word_once():
    assert build_query("stem cells stem ") == Query((Term("stems", "stem"), Term("stems", "cell")))


def test_the_weight_stops_at_max_repeat():
    assert weights("cell " * (MAX_REPEAT + 5)) == {"cell": MAX_REPEAT}


def test_the_word_being_typed_counts_apart_from_the_same_finished_word():
    assert build_query("cell membrane cell") == Query((Term("stems", "cell"), Term("stems", "membran"),
                                                       Term("stems", "cell", prefix=True)))


def test_repeats_decide_the_bm25_order(conn):
    assert ranked(conn, LONG + "cell membrane cell cell ") == [1, 2]
    assert ranked(conn, LONG + "membrane cell membrane membrane ") == [2, 1]


def test_fts5_writes_a_term_once_per_weight_and_tsquery_once():
    query = Query((Term("stems", "cell", weight=3), Term("words", "日本", prefix=True)))
    assert to_fts5(query) == " OR ".join(['{title stems} : "cell"'] * 3 + ['{title words} : "日本"*'])
    assert to_tsquery(query) == "'cell':AC | '日本':*AB"


def test_tsquery_groups_share_the_rank_by_weight():
    query = Query((Term("stems", "cell", weight=3), Term("words", "日本", prefix=True), Term("stems", "wall")))
    assert tsquery_groups(query) == [(2 / 3, "'日本':*AB | 'wall':AC"), (1.0, "'cell':AC")]
    same = Query((Term("stems", "cell"), Term("stems", "wall")))
    assert tsquery_groups(same) == [(1.0, to_tsquery(same))] and tsquery_groups(Query()) == []


def test_a_pasted_page_is_capped_in_terms_and_phrases(conn):
    page = " ".join(f"word{i} common common" for i in range(5000))
    query = build_query(page)
    assert len(query.terms) == MAX_TERMS
    assert all(1 <= t.weight <= MAX_REPEAT for t in query.terms)
    match = to_fts5(query)
    assert match is not None and match.count(" OR ") + 1 <= MAX_TERMS * MAX_REPEAT
    conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (match,)).fetchall()
    assert build_query("x" * (MAX_QUERY_CHARS * 50)) == build_query("x" * MAX_QUERY_CHARS)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["cell", "Cells", "the", "日本語", "ภาษาไทย", "المكتبة", '"', "OR", "*", " ", ".",
                                 "\ud800", "é", "NEAR(", "-"]), max_size=200).map(" ".join) | st.text())
def test_any_text_never_raises_and_weights_stay_in_range(conn, text):
    query = build_query(text)
    assert len(query.terms) <= MAX_TERMS
    assert all(1 <= t.weight <= MAX_REPEAT for t in query.terms)
    assert len(set(query.terms)) == len(query.terms)
    match = to_fts5(query)
    if match is not None:
        conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (match,)).fetchall()
    assert (match is None) == (to_tsquery(query) is None) == (not query)
