"""Convex combination fusion: scale each method's scores to [0, 1], then take a weighted mean.

Reciprocal rank fusion keeps only ranks, so a BM25 hit far ahead of the rest
counts no more than one barely ahead. Here each method's scores are min-max
scaled over that query's candidates (its best hit 1, its last 0) and averaged
with the method weights. A candidate one method did not return gets 0 from it:
it ranked below everything that method returned.

Measured on BEIR SciFact (BM25 + all-MiniLM-L6-v2, 100 candidates a side):
RRF reaches nDCG@10 0.70 with k=60 and 0.72 with k tuned; this reaches 0.73
with equal weights and stays within 0.01 of that for BM25 shares from 0.4 to
0.6, so equal weights need no tuning (see docs/readme/eval_retrieval.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from docuchat.search.fusion import Fused


def convex_fusion(
    scored: Mapping[str, Sequence[tuple[str, float]]],
    *,
    weights: Mapping[str, float] | None = None,
) -> list[Fused]:
    """Fuse ``{method: [(id, score), ...] best first}`` into one list, best first.

    Scores are higher-is-better within a method and need not be comparable
    across methods. The fused score is in [0, 1]. A method missing from
    ``weights`` has weight 1; one with weight 0 is left out. Ties go to the
    better best rank, then to the earlier method's order.
    """
    weights = weights or {}
    counted = {m: hits for m, hits in scored.items() if weights.get(m, 1.0) != 0}
    total = sum(weights.get(method, 1.0) for method in counted)
    fused: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for method, hits in counted.items():
        share = weights.get(method, 1.0) / total
        for rank, (item, scaled) in enumerate(_min_max(hits), 1):
            if method not in ranks.setdefault(item, {}):
                ranks[item][method] = rank
                fused[item] = fused.get(item, 0.0) + share * scaled
    order = {item: position for position, item in enumerate(ranks)}
    results = [Fused(item, fused[item], found) for item, found in ranks.items()]
    results.sort(key=lambda f: (-f.score, min(f.ranks.values()), order[f.id]))
    return results


def _min_max(hits: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """Scores scaled to [0, 1] over this list; all 1 when they are all equal."""
    if not hits:
        return []
    low = min(score for _, score in hits)
    spread = max(score for _, score in hits) - low
    return [(item, (score - low) / spread if spread > 0 else 1.0) for item, score in hits]


__all__ = ["convex_fusion"]
