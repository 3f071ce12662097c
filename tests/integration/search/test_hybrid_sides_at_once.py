"""Hybrid search runs its keyword and semantic sides at once on a server (core/search/side_pool.py: each side waits
on it) and one after the other on SQLite (both are this process's CPU work: at once was no faster on 2 cores), on
the real engines with the real MiniLM: the results are exactly those of the sides run one after the other, for
every query, with or without filters, and also while several threads search at the same time."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from desktop_app.core.embed.base import embed_query
from desktop_app.core.library import Library
from desktop_app.core.search.service import SearchParams, candidate_count, fuse, hydrate, search_store
from desktop_app.core.search.side_pool import THREAD_PREFIX
from desktop_app.core.settings import Settings
from desktop_app.core.store.rows import Filters
from desktop_app.core.text import build_query

TOPICS = ["lighthouse keeper logbook", "invoice for electricity", "garden tomato harvest", "sourdough starter",
          "bicycle gear repair", "quarterly launch plan", "tax return receipts", "piano practice scales"]
QUERIES = ["lighthouse", "how much was the electricity bill", "tomatoes in the garden", "sourdough bread",
           "fix my bike", "launch", "receipts for taxes", "music practice", "keeper", "plan for the quarter"]


def notes(root: Path) -> Path:
    for i in range(40):
        topic = TOPICS[i % len(TOPICS)]
        folder = root / ("work" if i % 2 else "home")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note{i:02d}.md").write_text(
            f"# {topic.title()} {i}\n\nNotes about the {topic}, entry {i}. "
            f"It mentions {TOPICS[(i * 3) % len(TOPICS)]} in passing.\n", encoding="utf-8")
    return root


@pytest.fixture(params=["sqlite", "postgresql"])
def library(request, tmp_path, minilm):
    db = request.getfixturevalue("pg_url") if request.param == "postgresql" else None
    lib = Library(tmp_path / "home", settings=Settings(), embedder=minilm, db=db)
    lib.add_folder(notes(tmp_path / "docs"))
    lib.sync(wait=True)
    yield lib
    lib.close()


def in_sequence(store, embedder, query: str, filters: Filters | None, top_k: int = 10):
    """What hybrid search returned when its sides ran one after the other."""
    params = SearchParams()
    n = candidate_count(top_k, params)
    keyword = store.keyword_candidates(query, n, title_weight=params.title_weight, filters=filters)
    dense = [h for h in store.dense_candidates(embed_query(embedder, query), n, filters=filters)
             if h[1] >= params.min_similarity]
    return hydrate(store, fuse(keyword, dense, params), top_k, build_query(query), False)


def test_hybrid_results_are_those_of_the_sides_in_sequence(library, minilm, monkeypatch):
    store = library.store
    folder = store.folder_ids([library.folders()[0].path])
    threads: list[str] = []
    keyword_candidates = store.keyword_candidates

    def recorded(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return keyword_candidates(*args, **kwargs)

    monkeypatch.setattr(store, "keyword_candidates", recorded)
    work = (f"{os.sep}work{os.sep}",)
    found: dict[Filters | None, int] = {}
    for filters in (None, Filters(types=("markdown",)), Filters(path_has=(work,)), Filters(folder_ids=folder)):
        for query in QUERIES:
            threads.clear()
            got = search_store(store, query, embedder=minilm, mode="hybrid", top_k=10, filters=filters)
            assert len(threads) == 1  # the pool ran the keyword side on a server, this thread on SQLite
            assert threads[0].startswith(THREAD_PREFIX) is (library.store.info().engine == "postgresql")
            assert got == in_sequence(store, minilm, query, filters), (query, filters)
            found[filters] = found.get(filters, 0) + bool(got)
            if filters and filters.path_has:
                assert all(f"{os.sep}work{os.sep}" in r.source for r in got)
    assert found[None] == found[Filters(types=("markdown",))] == len(QUERIES)
    assert 0 < found[Filters(path_has=(work,))] < len(QUERIES)  # half the notes: some topics are all at home


def test_searches_from_several_threads_at_once_get_the_same_results(library, minilm):
    store = library.store
    expected = {q: in_sequence(store, minilm, q, None) for q in QUERIES}
    with ThreadPoolExecutor(max_workers=4) as searchers:
        got = list(searchers.map(lambda q: (q, search_store(store, q, embedder=minilm, mode="hybrid", top_k=10)),
                                 QUERIES * 4))
    assert all(results == expected[q] for q, results in got)
    assert all(expected[q] for q in QUERIES)
