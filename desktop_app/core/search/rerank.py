"""Reranking: the best search candidates read again against the query, and reordered.

A Reranker scores (query, passage) pairs, higher is more relevant. `load_reranker()` gives the one this
machine can run (loaded once per process, then shared by every thread), or None with one log line;
`rerank(reranker, query, results, top_n)` reorders search results by it and keeps the first `top_n`, each
result's metadata carrying its `rerank_score` and the `search_rank` it had before.

No PyPI package we could find carries a cross-encoder or an extractive-QA model's weights (the README's "Rerank,
measured" says which wheels were unpacked), so the reranker here is built from the embedding
model the project already ships, used differently from search: search compares the query with one vector per
passage window, the reranker compares it with each *sentence* of the passage as well
(core/search/rerank_embed.py). Any better model that ships later fits the same protocol: add its loader to
LOADERS ahead of the embedder's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol

from desktop_app.core.errors import UnavailableError
from desktop_app.core.log import get_logger
from desktop_app.core.types import RetrievalResult

log = get_logger("search")


class Reranker(Protocol):
    """Scores passages for a query: one float per text, higher is more relevant.

    `name` says which model (logs, bench/rerank.py, `trove search --json`); `floor` is the score under which
    the reranker holds that no passage answers (chat's abstention reads it).
    """

    name: str
    floor: float

    def score(self, query: str, texts: Sequence[str]) -> list[float]: ...


def rerank(reranker: Reranker, query: str, results: list[RetrievalResult], top_n: int) -> list[RetrievalResult]:
    """`results` in the reranker's order (ties keep the search order), the first `top_n`.

    The results are copies: `score` stays the search's (chat's `context_min_score` still means the same), and
    `metadata` gains "rerank_score" and "search_rank" (0-based, where search had put it).
    """
    if not results or top_n <= 0:
        return []
    scores = reranker.score(query, [r.content for r in results])
    if len(scores) != len(results):
        raise UnavailableError(f"the reranker {reranker.name} scored {len(scores)} of {len(results)} passages")
    order = sorted(range(len(results)), key=lambda i: (-scores[i], i))[:top_n]
    return [replace(results[i], metadata={**results[i].metadata, "rerank_score": float(scores[i]),
                                          "search_rank": i}) for i in order]


def _embedder_reranker() -> Reranker:
    from desktop_app.core.search.rerank_embed import load_embed_reranker

    return load_embed_reranker()


# Tried in order; the first that loads is the process's reranker. Each raises UnavailableError when it cannot.
LOADERS: list[Callable[[], Reranker]] = [_embedder_reranker]

_lock = threading.Lock()
_loaded: list[Reranker | None] = []  # empty: not tried yet; [None]: tried, nothing loads here


def load_reranker() -> Reranker | None:
    """The first reranker of LOADERS that loads (cached per process), or None with one log line."""
    with _lock:
        if not _loaded:
            _loaded.append(_first_that_loads())
        return _loaded[0]


def _first_that_loads() -> Reranker | None:
    reasons = []
    for loader in LOADERS:
        try:
            reranker = loader()
        except UnavailableError as exc:
            reasons.append(str(exc))
            continue
        log.info("reranker: %s", reranker.name)
        return reranker
    log.warning("no reranker loads here (%s): results keep the search order", "; ".join(reasons) or "none listed")
    return None


def forget_reranker() -> None:
    """Drop the cached reranker: the next load_reranker() tries LOADERS again (tests swap LOADERS)."""
    with _lock:
        _loaded.clear()
