"""A word a long query repeats weighs as often as it is said, on both engines (FTS5 bm25() and PostgreSQL
ts_rank), so a pasted paragraph is ranked by what it keeps coming back to. Every test runs on SQLite and on a real
PostgreSQL (the `store` fixture)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.core import text as tp
from tests.integration.store.test_store_protocol import chunks, doc

# 15 words no document holds: with "lamp" and "tide" the query has 17 distinct terms, past text.WEIGHTED_FROM
FILLER = "quartz violet meadow falcon ember saffron granite juniper cobalt walnut orchid pewter mosaic cinder velvet"
DOCS = {
    "lamp.txt": "the keeper lit a lamp above the harbour wall at dusk",
    "tide.txt": "the tide rose and the tide fell against the harbour wall",
    "trains.txt": "timetables for the morning trains to the coast",
    "bread.txt": "a recipe for rye bread baked in a clay oven",
    "roads.txt": "maps of mountain roads closed in winter",
}


@pytest.fixture
def harbour(store, folder):
    for name, text in DOCS.items():
        store.write_document(doc(folder.id, f"{folder.path}/{name}", title="note"), chunks(text))
    return store


def order(store, query: str) -> list[str]:
    hits = store.keyword_candidates(query, 10)
    rows = store.chunk_rows([c for c, _ in hits])
    return [Path(rows[c].path).name for c, _ in hits]


def test_the_query_is_long_enough_to_be_weighted():
    weights = {t.token: t.weight for t in tp.build_query(f"lamp lamp lamp lamp lamp tide {FILLER}").terms}
    assert len(weights) >= 16 and weights["lamp"] == 5 and weights["tide"] == 1


def test_said_once_each_the_document_with_the_word_twice_ranks_first(harbour):
    assert order(harbour, f"lamp tide {FILLER}") == ["tide.txt", "lamp.txt"]


def test_a_word_said_five_times_outweighs_a_word_said_once(harbour):
    assert order(harbour, f"lamp lamp lamp lamp lamp tide {FILLER}") == ["lamp.txt", "tide.txt"]
    assert order(harbour, f"lamp tide tide tide tide tide {FILLER}") == ["tide.txt", "lamp.txt"]
