"""Convex combination fusion against hand-computed scores."""

from __future__ import annotations

import pytest

from docuchat.search.fusion_convex import convex_fusion

BM25 = [("a", 10.0), ("b", 6.0), ("c", 2.0)]  # scaled: a 1, b 0.5, c 0
VECTOR = [("b", 0.9), ("c", 0.8), ("d", 0.5)]  # scaled: b 1, c 0.75, d 0


def test_equal_weights_average_the_scaled_scores() -> None:
    fused = convex_fusion({"bm25": BM25, "vector": VECTOR})

    assert [(f.id, f.score) for f in fused] == [
        ("b", pytest.approx(0.75)),
        ("a", pytest.approx(0.5)),
        ("c", pytest.approx(0.375)),
        ("d", pytest.approx(0.0)),
    ]
    assert fused[0].ranks == {"bm25": 2, "vector": 1}
    assert fused[1].ranks == {"bm25": 1}


def test_weights_shift_the_balance() -> None:
    fused = convex_fusion({"bm25": BM25, "vector": VECTOR}, weights={"bm25": 3.0})
    scores = {f.id: f.score for f in fused}
    assert scores["a"] == pytest.approx(0.75)
    assert scores["b"] == pytest.approx(0.75 * 0.5 + 0.25 * 1.0)
    assert [f.id for f in fused][:2] == ["a", "b"]


def test_only_the_shape_of_each_method_scores_matters() -> None:
    scaled = [(item, 1000 * score - 7) for item, score in BM25]
    assert convex_fusion({"bm25": scaled, "vector": VECTOR}) == convex_fusion(
        {"bm25": BM25, "vector": VECTOR}
    )


def test_equal_scores_and_single_hits_count_fully() -> None:
    fused = convex_fusion({"bm25": [("a", 3.0)], "vector": [("b", 0.2), ("a", 0.2)]})
    assert {f.id: f.score for f in fused} == {"a": 1.0, "b": 0.5}


def test_ties_go_to_the_better_best_rank_then_the_earlier_method() -> None:
    fused = convex_fusion({"bm25": [("x", 2.0), ("y", 1.0)], "vector": [("y", 2.0), ("x", 1.0)]})
    assert [f.id for f in fused] == ["x", "y"]  # both 0.5; x is first in the first method


def test_empty_lists() -> None:
    assert convex_fusion({}) == []
    assert [f.id for f in convex_fusion({"bm25": [], "vector": VECTOR})] == ["b", "c", "d"]


def test_a_zero_weight_method_is_left_out() -> None:
    fused = convex_fusion({"bm25": BM25, "vector": VECTOR}, weights={"vector": 0.0})
    assert [(f.id, f.ranks) for f in fused] == [
        ("a", {"bm25": 1}),
        ("b", {"bm25": 2}),
        ("c", {"bm25": 3}),
    ]
