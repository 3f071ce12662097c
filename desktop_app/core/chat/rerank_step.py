"""The chat's rerank step: a wider candidate set from hybrid search, reordered by a cross-encoder, the top few kept.

The reranker itself lives in core/search/rerank.py (`load_reranker() -> Reranker | None`, `Reranker.score`,
`rerank(reranker, query, results, top_n)`), imported lazily so chat works, unreranked, without it. The results
kept are the retrieval's own objects (their fusion scores still decide `context_min_score`); the reranker's
best score rides along for abstention.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from desktop_app.core.log import get_logger
from desktop_app.core.types import RetrievalResult

log = get_logger("chat")

CANDIDATES = 24  # hybrid-search results the reranker reads per question


class Reranker(Protocol):
    """Scores (query, passage) pairs; higher is more relevant. It may carry a `floor`: the score under which no
    passage answers (quote_default.RERANK_FLOOR otherwise)."""

    def score(self, query: str, texts: Sequence[str]) -> list[float]: ...


@dataclass(frozen=True)
class Reranked:
    """The kept results, best first, and the reranker's score of the best one (None: no reranker ran)."""

    results: list[RetrievalResult]
    best: float | None = None


def default_reranker() -> Reranker | None:
    """core/search/rerank.py's reranker when that module and its model load; None otherwise."""
    try:
        from desktop_app.core.search.rerank import load_reranker
    except ImportError:
        return None
    try:
        return load_reranker()
    except Exception as exc:  # noqa: BLE001 - a reranker that cannot load leaves chat unreranked, not broken
        log.warning("reranker unavailable (%s): chat passages keep the search order", exc)
        return None


def _library_rerank() -> Callable[..., list[Any]] | None:
    try:
        from desktop_app.core.search.rerank import rerank
    except ImportError:
        return None
    return rerank


def _key(r: Any) -> tuple:
    meta = getattr(r, "metadata", None) or {}
    return (r.source, r.content, meta.get("chunk_id"))


def order(reranker: Reranker, query: str, results: Sequence[RetrievalResult], top_n: int) -> list[RetrievalResult]:
    """The reranker's order of `results`, the first `top_n`, as the retrieval's own objects."""
    library_rerank = _library_rerank()
    if library_rerank is not None:
        by_key = {_key(r): r for r in results}
        ranked = [by_key.get(_key(r)) for r in library_rerank(reranker, query, list(results), top_n)]
        return [r for r in ranked if r is not None][:top_n]
    scores = reranker.score(query, [r.content for r in results])
    ranked_idx = sorted(range(len(results)), key=lambda i: (-scores[i], i))
    return [results[i] for i in ranked_idx[:top_n]]


def rerank_results(reranker: Reranker | None, query: str, results: Sequence[RetrievalResult], top_n: int) -> Reranked:
    """Rerank when a reranker is given (a failure keeps the search order); otherwise the first `top_n` as found."""
    if reranker is None or not results:
        return Reranked(list(results)[:top_n])
    try:
        kept = order(reranker, query, results, top_n)
        best = max(reranker.score(query, [kept[0].content])) if kept else None
    except Exception as exc:  # noqa: BLE001 - the answer goes on in search order
        log.warning("rerank failed (%s): passages keep the search order", exc)
        return Reranked(list(results)[:top_n])
    return Reranked(kept, best)
