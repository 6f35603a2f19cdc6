"""Reciprocal rank fusion."""

from __future__ import annotations

import pytest

from docuchat.search import reciprocal_rank_fusion


def test_scores_are_weighted_reciprocal_ranks_summed_over_methods() -> None:
    fused = reciprocal_rank_fusion(
        {"bm25": ["a", "b", "c"], "vector": ["c", "a"]}, weights={"vector": 2.0}, rrf_k=10
    )

    by_id = {f.id: f for f in fused}
    assert by_id["a"].score == pytest.approx(1 / 11 + 2 / 12)
    assert by_id["c"].score == pytest.approx(1 / 13 + 2 / 11)
    assert by_id["b"].score == pytest.approx(1 / 12)
    assert [f.id for f in fused] == ["c", "a", "b"]
    assert by_id["c"].ranks == {"bm25": 3, "vector": 1}
    assert by_id["b"].ranks == {"bm25": 2}


def test_an_item_found_by_both_methods_beats_one_found_by_one() -> None:
    fused = reciprocal_rank_fusion({"bm25": ["x", "both"], "vector": ["y", "both"]})
    assert fused[0].id == "both"


def test_ties_go_to_the_better_best_rank_then_the_earlier_method() -> None:
    fused = reciprocal_rank_fusion({"bm25": ["a", "b"], "vector": ["c", "d"]})
    assert [f.id for f in fused] == ["a", "c", "b", "d"]


def test_zero_weight_silences_a_method_and_repeats_count_once() -> None:
    fused = reciprocal_rank_fusion(
        {"bm25": ["a", "a", "b"], "vector": ["c", "b"]}, weights={"vector": 0.0}
    )
    assert [f.id for f in fused] == ["a", "b"]
    assert fused[0].ranks == {"bm25": 1}
    assert fused[1].ranks == {"bm25": 3}
    assert reciprocal_rank_fusion({}) == []
