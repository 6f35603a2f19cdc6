"""Finding passages: hybrid BM25 + vector search with reciprocal rank fusion and snippets."""

from __future__ import annotations

from docuchat.search.fusion import DEFAULT_RRF_K, Fused, reciprocal_rank_fusion
from docuchat.search.hybrid import (
    MODES,
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
    "HybridConfig",
    "HybridSearcher",
    "Mode",
    "RankedChunk",
    "SearchResult",
    "Snippet",
    "make_snippet",
    "reciprocal_rank_fusion",
]
