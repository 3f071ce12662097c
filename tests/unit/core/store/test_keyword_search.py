"""Keyword search through the SQLite store: any text is searched as words (never FTS5 syntax), the typed word is a
prefix, highlights land on the matched characters — on the real FTS5 index written by the store."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.ingest.chunking import Span
from desktop_app.core.search.service import search_store
from desktop_app.core.store.rows import NewChunk, NewDocument
from desktop_app.core.store.sqlite import SQLiteStore

TEXTS = {"/d/notes.txt": "retrieval augmented generation with sqlite",
         "/d/and or not.txt": "NEAR the column: value"}


@pytest.fixture(scope="module")
def store():
    s = SQLiteStore(":memory:")
    folder = s.add_folder("/d")
    for path, text in TEXTS.items():
        s.write_document(NewDocument(folder_id=folder.id, path=path, title="", type="text", size=len(text),
                                     digest=path),
                         [NewChunk(Span(0, len(text), text), None)])
    yield s
    s.close()


def paths(store, query: str) -> list[str]:
    return [r.source for r in search_store(store, query, embedder=None, mode="keyword")]


NASTY = ['"', '""', "'", "AND", "OR", "NOT", "NEAR", "NEAR(a b)", "a AND", "*", "^", "^a", "a*", "(", ")", "(a OR",
         "col:val", ":", "title:x", "🙂🙂", "-", "+", "{a b}", "a -b", "\x00", "NOT NOT", "\\", 'a"b', " ", "",
         "x" * 10_000, "word " * 2000, "\ud800 lone surrogate", "{title words}: x", "stems:cell*"]


@pytest.mark.parametrize("query", NASTY)
def test_nasty_queries_never_raise(store, query):
    store.keyword_candidates(query, 10)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_never_raises(store, text):
    store.keyword_candidates(text, 10)


def test_operators_are_searched_as_words(store):
    assert paths(store, "NEAR") == ["/d/and or not.txt"]


def test_the_typed_word_is_a_prefix_and_a_finished_one_is_not(store):
    assert paths(store, "retriev") == ["/d/notes.txt"]
    assert paths(store, "gener") == ["/d/notes.txt"]
    assert paths(store, "generations") == ["/d/notes.txt"]  # stems to gener*
    assert paths(store, "genera ") == []  # a finished word is not a prefix


def test_highlights_land_on_the_matched_words(store):
    [hit] = search_store(store, "sqlite retrieval", embedder=None, mode="keyword")
    marked = [hit.content[a:b] for a, b in hit.metadata["highlights"]]
    assert marked == ["retrieval", "sqlite"] and hit.metadata["lang"] == "en"
