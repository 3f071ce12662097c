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


def test_convex_fuse_normalises_and_weights():
    from desktop_app.core.search.fusion import convex_fuse

    keyword = [("a", 10.0), ("b", 5.0), ("c", 0.0)]
    dense = [("b", 0.9), ("d", 0.5)]
    fused = dict(convex_fuse([keyword, dense], [1.0, 1.0]))
    assert fused["a"] == pytest.approx(0.5)        # top keyword, absent from dense
    assert fused["b"] == pytest.approx(0.25 + 0.5)  # middle keyword, top dense
    assert fused["c"] == pytest.approx(0.0) and fused["d"] == pytest.approx(0.0)
    assert [k for k, _ in convex_fuse([keyword, dense], [1.0, 1.0])][:2] == ["b", "a"]
    assert convex_fuse([keyword, dense], [1.0, 0.0])[0][0] == "a"


def test_convex_fuse_edge_cases():
    from desktop_app.core.search.fusion import convex_fuse

    assert convex_fuse([[], []]) == []
    assert convex_fuse([[("x", 3.0)], []]) == [("x", 0.5)]
    with pytest.raises(ValueError):
        convex_fuse([[("x", 1.0)]], [1.0, 1.0])

