"""The keyword side index's stored column terms rank exactly as the text they were made from (issue 48).

The SQLite engine ranks the side index's candidates with FTS5's bm25() in Python (sqlite/keyword/bm25.py). It
used to run the text pipeline over every candidate's stored text at query time; it now reads each candidate's
column terms stored in the side index when it was built. On real passages in English, Thai, Chinese, Arabic and
Japanese (XQuAD, CC BY-SA 4.0: bench/data/multilingual-qa) this checks that the stored terms are the tokens FTS5's
ascii tokenizer reads, that the scores equal the computation they replaced (kept below as the oracle), and that the
side index's answer is FTS5's own plan's (ids, order, scores) on real FTS5 and tantivy."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core import text as tp
from desktop_app.core.ingest.extract import index_title
from desktop_app.core.store.side import keyword_index as ki
from desktop_app.core.store.sqlite import SQLiteStore
from desktop_app.core.store.sqlite.keyword import bm25 as fts5_bm25
from desktop_app.core.store.sqlite.keyword import fts5 as keyword_fts5
from tests.integration.store.test_keyword_index import built, fts5_answer, side_only, write

XQUAD = Path(__file__).resolve().parents[3] / "bench" / "data" / "multilingual-qa"
SCRIPTS = ("en", "th", "zh", "ar", "ja")
PASSAGES = 30  # per script: 150 chunks


def _lines(lang: str, name: str, n: int) -> list[dict]:
    with open(XQUAD / lang / name, encoding="utf-8") as fh:
        return [json.loads(line) for _, line in zip(range(n), fh, strict=False)]


def questions() -> list[str]:
    """Questions in each script, as typed (a prefix at the end) and as sent (a final question mark)."""
    out = []
    for lang in SCRIPTS:
        for q in _lines(lang, "queries.jsonl", 12):
            out.extend([q["text"], q["text"].rstrip("?؟？ ")])
    return out


@pytest.fixture(autouse=True)
def small_threshold(monkeypatch):
    monkeypatch.setattr(ki, "MIN_CHUNKS", 10)
    monkeypatch.setattr(ki, "REBUILD_QUIET", 0.0)


@pytest.fixture
def library(tmp_path):
    store = SQLiteStore(tmp_path / "library.db")
    store.ensure_embedding_model("test-model", 4)
    fid = store.add_folder("/lib").id
    for lang in SCRIPTS:
        for i, doc in enumerate(_lines(lang, "corpus.jsonl", PASSAGES)):
            write(store, fid, f"/lib/{lang}/{doc['_id']} passage {i}", doc["text"])
    built(store)
    yield store
    store.close()


def old_scores(query: tp.Query, rows, hits, total_rows: int, total_tokens: int) -> list[tuple[int, float]]:
    """bm25.scores as it was before the stored terms (2026-12-06): each row's index_fields columns split and
    counted at query time, phrases counted over the token lists. Kept as the oracle."""
    k1, b = fts5_bm25.K1, fts5_bm25.B
    weights = [tp.FTS5_WEIGHTS[c] for c in tp.FTS5_COLUMNS]
    avgdl = total_tokens / max(total_rows, 1)
    words: dict[str, list[tuple[int, float]]] = {}
    phrases: list[tuple[list[str], bool, int, float]] = []
    for term, n in zip(query.terms, hits, strict=True):
        tokens = fts5_bm25.ascii_tokens(term.token)
        if tokens:
            idf = max(math.log((total_rows - n + 0.5) / (n + 0.5)), 1e-6) * max(1, term.weight)
            column = tp.FTS5_COLUMNS.index(term.field)
            if len(tokens) == 1 and not term.prefix:
                words.setdefault(tokens[0], []).append((column, idf))
            else:
                phrases.append((tokens, term.prefix, column, idf))
    out = []
    for cid, fields in rows:
        cols = [fts5_bm25.ascii_tokens(fields[c]) for c in tp.FTS5_COLUMNS]
        counts = [Counter(col) for col in cols]
        norm = k1 * (1 - b + b * sum(map(len, cols)) / avgdl)
        score = 0.0
        present = set().union(*(words.keys() & c.keys() for c in counts))
        for word in sorted(present):
            for column, idf in words[word]:
                title = weights[0] * counts[0].get(word, 0)
                f = title + (weights[column] * counts[column].get(word, 0) if column else 0)
                if f:
                    score += idf * f * (k1 + 1) / (f + norm)
        for tokens, prefix, column, idf in phrases:
            f = sum(weights[c] * _instances(cols[c], tokens, prefix) for c in {0, column})
            if f:
                score += idf * f * (k1 + 1) / (f + norm)
        out.append((cid, score))
    return sorted(out, key=lambda h: (-h[1], h[0]))


def _instances(column: list[str], phrase: list[str], prefix: bool) -> int:
    n, last = len(phrase), phrase[-1]
    return sum(1 for i in range(len(column) - n + 1)
               if (column[i + n - 1].startswith(last) if prefix else column[i + n - 1] == last)
               and column[i:i + n - 1] == phrase[:-1])


def _texts(store: SQLiteStore) -> dict[int, dict[str, str]]:
    rows = store._read(lambda c: c.execute("SELECT c.id, c.text, d.title, d.path FROM chunks c "
                                           "JOIN documents d ON d.id = c.document_id").fetchall())
    return {cid: tp.index_fields(index_title(title, Path(path)), text) for cid, text, title, path in rows}


def test_stored_terms_are_the_tokens_fts5_reads(library):
    side = library.__dict__["_keyword_index"]._index
    fields = _texts(library)
    hits = side.hits(tp.Query(tuple(tp.Term("stems", w) for w in ("the", "of", "in", "a"))), 1000)
    hits += side.hits(tp.build_query("的 และ في の"), 1000)
    stored = side.terms(hits)
    assert stored is not None and len({h.chunk for h in hits}) > 100
    for hit, terms in zip(hits, stored, strict=True):
        columns = [Counter(fts5_bm25.ascii_tokens(fields[hit.chunk][c])) for c in tp.FTS5_COLUMNS]
        assert terms.length == sum(c.total() for c in columns) > 0
        for i, counts in enumerate(columns):
            for token, n in counts.items():
                assert terms.count(i, token) == n, (hit.chunk, i, token)
                assert terms.starting(i, token) == sum(m for t, m in counts.items() if t.startswith(token))
            tokens = list(counts)
            for token in {t[:k] for t in tokens for k in (1, 2)}:  # prefixes of one or two characters
                assert terms.starting(i, token) == sum(m for t, m in counts.items() if t.startswith(token))
            for other in columns[:i] + columns[i + 1:]:  # a word of another column only: none here
                for token in set(other) - set(counts):
                    assert terms.count(i, token) == 0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp"),
                                                      blacklist_characters=":"), min_size=1, max_size=6),
                                st.integers(1, 1000), max_size=8),
                min_size=len(tp.FTS5_COLUMNS), max_size=len(tp.FTS5_COLUMNS)),
       st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp"), blacklist_characters=":"),
               min_size=1, max_size=3))
def test_packed_terms_answer_as_the_counts_they_pack(columns, word):
    # Tokens are letters, marks and digits (no whitespace, no ASCII colon); any other text of that kind packs too.
    packed = ki.PackedTerms(ki.packed_terms(columns))
    counted = fts5_bm25.CountedColumns(columns)
    assert packed.length == counted.length
    for i, counts in enumerate(columns):
        for token in [word, *counts]:
            assert packed.count(i, token) == counted.count(i, token)
            assert packed.starting(i, token) == counted.starting(i, token)


def test_scores_from_stored_terms_equal_the_old_computation(library):
    side = library.__dict__["_keyword_index"]._index
    fields = _texts(library)
    stats = library._read(fts5_bm25.table_stats)
    assert stats is not None
    compared = 0
    for question in questions():
        query = tp.build_query(question)
        hits = side.hits(query, 2 * 50)
        stored = side.terms(hits)
        assert stored is not None
        rows = side.term_rows(query)
        new = fts5_bm25.scores(query, [(h.chunk, t) for h, t in zip(hits, stored, strict=True)], rows, stats[0],
                               sum(stats[1]))
        old = old_scores(query, [(h.chunk, fields[h.chunk]) for h in hits], rows, stats[0], sum(stats[1]))
        assert new == old, question  # the same floats: the same sums in the same order
        compared += len(hits)
    assert compared > 500


def test_the_side_index_answer_is_fts5s_own(library, monkeypatch):
    # Whole words only: a typed prefix's row count is the side index's estimate (bm25.py), as it was before.
    sent = [q for q in questions() if not any(t.prefix for t in tp.build_query(q).terms)]
    expected = {q: fts5_answer(library, q, 10) for q in sent}
    side_only(monkeypatch)
    assert len(sent) > 40  # (a lone Han character is a prefix too)
    for q in sent:
        got = library.keyword_candidates(q, 10)
        assert [c for c, _ in got] == [c for c, _ in expected[q]], q
        assert np.allclose([s for _, s in got], [s for _, s in expected[q]], rtol=1e-9, atol=1e-12), q


def test_an_index_without_terms_ranks_from_the_stored_text(library, monkeypatch):
    query = tp.build_query(questions()[0])
    expected = library.keyword_candidates(questions()[0], 10)
    monkeypatch.setattr(ki.Keywords, "terms", lambda self, hits: None)
    made_again = []
    original = keyword_fts5._counts_from_text
    monkeypatch.setattr(keyword_fts5, "_counts_from_text", lambda conn, chunks: made_again.append(1) or
                        original(conn, chunks))
    assert library.keyword_candidates(questions()[0], 10) == expected and made_again and query


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("aZ9 _-.'éßİ\u0301ค้น日本語한국المكتبة٣²ⅷ\u00a0\u3000\x1c"), max_size=40))
def test_every_query_term_is_one_ascii_token(typed):
    # What lets the counts answer every term: a term is one word or one prefix, never a phrase of several tokens.
    for term in tp.build_query(typed).terms:
        assert fts5_bm25.ascii_tokens(term.token) == [term.token]
    for column in tp.index_fields(typed, typed).values():
        assert column.split() == fts5_bm25.ascii_tokens(column)
