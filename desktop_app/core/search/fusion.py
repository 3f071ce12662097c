"""Weighted reciprocal rank fusion, as a pure function."""

from __future__ import annotations

from collections.abc import Hashable, Sequence


def rrf_fuse(rankings: Sequence[Sequence[Hashable]], weights: Sequence[float] | None = None, k: int = 60) -> list[tuple[Hashable, float]]:
    """Fuse ranked lists: score(d) = Σ weight_i / (k + rank_i(d)), ranks from 1. Best first; ties keep first-seen order."""
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError("one weight per ranking")
    scores: dict[Hashable, float] = {}
    for ranking, weight in zip(rankings, weights):
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    order = {key: i for i, key in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))
