"""The FTS query builder never raises, on any input, against the real FTS5 index."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.search.fts_query import build_fts_query, highlight_spans, query_terms
from desktop_app.core.store.sqlite import SQLiteStore


@pytest.fixture(scope="module")
def store():
    s = SQLiteStore(":memory:")
    with s._tx() as c:  # raw FTS rows: this tests the query side alone
        c.execute("INSERT INTO chunks_fts (rowid, title, text) VALUES (1, 'notes', 'retrieval augmented generation with sqlite')")
        c.execute("INSERT INTO chunks_fts (rowid, title, text) VALUES (2, 'and or not', 'NEAR the column: value')")
    yield s
    s.close()


def keyword_candidates(store, query, limit):
    return store.keyword_candidates(query, limit)


NASTY = ['"', '""', "'", "AND", "OR", "NOT", "NEAR", "NEAR(a b)", "a AND", "*", "^", "^a", "a*", "(", ")", "(a OR",
         "col:val", ":", "title:x", "🙂🙂", "-", "+", "{a b}", "a -b", "\x00", "NOT NOT", "\\", "a\"b", " ", "",
         "x" * 10_000, "word " * 2000]


@pytest.mark.parametrize("query", NASTY)
def test_nasty_queries_never_raise(store, query):
    keyword_candidates(store, query, 10)


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_any_text_never_raises(store, text):
    keyword_candidates(store, text, 10)


def test_operators_are_searched_as_words(store):
    hits = keyword_candidates(store, "NEAR", 10)
    assert [cid for cid, _ in hits] == [2]


def test_last_token_is_a_prefix_while_typing(store):
    assert [c for c, _ in keyword_candidates(store, '"retriev', 10)] == [1]
    assert [c for c, _ in keyword_candidates(store, "gener", 10)] == [1]
    # the typed word is one Porter-stemmed prefix phrase, so BM25 counts it once: "generations"* is "gener"*
    assert build_fts_query("sqlite generations") == '"sqlite" OR "generations"*'
    assert [c for c, _ in keyword_candidates(store, "generations", 10)] == [1]
    # a finished word (trailing space) is not a prefix: "genera " does not match "generation"
    assert keyword_candidates(store, "genera ", 10) == []


def test_empty_queries_build_nothing():
    assert build_fts_query("") is None
    assert build_fts_query("   ") is None
    assert build_fts_query("()*^:") is None


def test_stopwords_dropped_only_when_something_is_left():
    assert query_terms("what is the retrieval") == ["retrieval"]
    assert query_terms("the") == ["the"]


def test_highlight_spans_mark_matching_words():
    content = "Retrieval beats retrieving; unrelated words stay."
    spans = highlight_spans(content, ["retrieval"])
    assert [content[a:b] for a, b in spans] == ["Retrieval", "retrieving"]
