"""Weighted reciprocal rank fusion as a pure function."""

import pytest

from desktop_app.core.search.fusion import rrf_fuse


def test_rrf_scores_follow_the_formula():
    fused = dict(rrf_fuse([["a", "b"], ["b", "c"]], k=60))
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["c"] == pytest.approx(1 / 62)



def test_agreement_beats_a_single_first_place():
    ranked = [key for key, _ in rrf_fuse([["x", "shared"], ["shared", "y"]])]
    assert ranked[0] == "shared"


def test_weights_tilt_the_order():
    keyword_first = rrf_fuse([["kw"], ["dense"]], weights=[2.0, 1.0])
    dense_first = rrf_fuse([["kw"], ["dense"]], weights=[1.0, 2.0])
    assert keyword_first[0][0] == "kw" and dense_first[0][0] == "dense"


def test_ties_keep_first_seen_order_and_empty_lists_are_fine():
    assert [k for k, _ in rrf_fuse([["a"], ["b"]])] == ["a", "b"]
    assert rrf_fuse([[], []]) == []


def test_one_weight_per_ranking():
    with pytest.raises(ValueError):
        rrf_fuse([["a"]], weights=[1.0, 2.0])
