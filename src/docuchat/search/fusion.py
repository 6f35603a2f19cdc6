"""Reciprocal rank fusion: merge ranked lists by rank alone, so scores need no calibration."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

DEFAULT_RRF_K = 60


@dataclass(frozen=True, slots=True)
class Fused:
    id: str
    score: float  # sum over methods of weight / (rrf_k + rank)
    ranks: Mapping[str, int]  # method -> 1-based rank, for the methods that found it


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[str]],
    *,
    weights: Mapping[str, float] | None = None,
    rrf_k: int = DEFAULT_RRF_K,
) -> list[Fused]:
    """Fuse ``{method: ids best first}`` into one list, best first.

    Ties go to the item with the better best rank, then to the earlier method.
    A method missing from ``weights`` has weight 1; one with weight 0 is left out.
    """
    weights = weights or {}
    ranks: dict[str, dict[str, int]] = {}
    for method, ids in rankings.items():
        if weights.get(method, 1.0) == 0:
            continue
        for rank, item in enumerate(ids, 1):
            ranks.setdefault(item, {}).setdefault(method, rank)
    fused = [
        Fused(
            item,
            sum(weights.get(method, 1.0) / (rrf_k + rank) for method, rank in found.items()),
            found,
        )
        for item, found in ranks.items()
    ]
    order = {item: position for position, item in enumerate(ranks)}
    fused.sort(key=lambda f: (-f.score, min(f.ranks.values()), order[f.id]))
    return fused
