"""Finding passages: hybrid BM25 + vector search, fused by scaled scores or by rank, with
highlighted snippets."""

from __future__ import annotations

from docuchat.search.fusion import DEFAULT_RRF_K, Fused, reciprocal_rank_fusion
from docuchat.search.fusion_convex import convex_fusion
from docuchat.search.hybrid import (
    MODES,
    Fusion,
    HybridConfig,
    HybridSearcher,
    Mode,
    RankedChunk,
    SearchResult,
)
from docuchat.search.snippets import Snippet, make_snippet

__all__ = [
    "DEFAULT_RRF_K",
    "MODES",
    "Fused",
    "Fusion",
    "HybridConfig",
    "HybridSearcher",
    "Mode",
    "RankedChunk",
    "SearchResult",
    "Snippet",
    "convex_fusion",
    "make_snippet",
    "reciprocal_rank_fusion",
]
