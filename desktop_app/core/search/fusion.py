"""Rank fusion as pure functions: weighted reciprocal rank fusion and a convex sum of normalised scores."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def rrf_fuse(rankings: Sequence[Sequence[K]], weights: Sequence[float] | None = None,
             k: int = 60) -> list[tuple[K, float]]:
    """Fuse ranked lists: score(d) = Σ weight_i / (k + rank_i(d)), ranks from 1. Best first; ties keep first-seen
    order."""
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError("one weight per ranking")
    scores: dict[K, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    order = {key: i for i, key in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))


def minmax(scored: Sequence[tuple[K, float]]) -> dict[K, float]:
    """Scores rescaled to 0..1 within one list (all equal → 1.0)."""
    if not scored:
        return {}
    lo = min(s for _, s in scored)
    hi = max(s for _, s in scored)
    return {key: (s - lo) / (hi - lo) if hi > lo else 1.0 for key, s in scored}


def convex_fuse(scored_lists: Sequence[Sequence[tuple[K, float]]],
                weights: Sequence[float] | None = None) -> list[tuple[K, float]]:
    """Fuse scored lists by a weighted sum of min-max normalised scores (a key missing from a list gets 0 there).

    The result is in 0..1 (weights are normalised to sum to 1): 1.0 means best in every list. Unlike RRF it
    keeps how far apart the scores are, not only their order. Best first; ties keep first-seen order.
    """
    if weights is None:
        weights = [1.0] * len(scored_lists)
    if len(weights) != len(scored_lists):
        raise ValueError("one weight per list")
    total = sum(weights) or 1.0
    scores: dict[K, float] = {}
    for scored, weight in zip(scored_lists, weights, strict=True):
        for key, s in minmax(scored).items():
            scores[key] = scores.get(key, 0.0) + weight / total * s
        for key, _ in scored:
            scores.setdefault(key, 0.0)
    order = {key: i for i, key in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))
