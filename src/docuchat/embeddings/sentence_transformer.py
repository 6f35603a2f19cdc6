"""all-MiniLM-L6-v2 through sentence-transformers and PyTorch: the reference numerics."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any

import numpy as np

from docuchat.embeddings.base import Vectors, l2_normalize
from docuchat.embeddings.weights import MINILM_ID, MiniLMWeights, isolate_hugging_face


class SentenceTransformerEmbedder:
    """Loads the model on first use (importing torch takes seconds)."""

    def __init__(self, weights: MiniLMWeights, *, batch_size: int = 16) -> None:
        self._weights = weights
        self._batch_size = batch_size

    name = MINILM_ID
    dim = 384

    @cached_property
    def _model(self) -> Any:
        isolate_hugging_face()
        from sentence_transformers import SentenceTransformer

        return SentenceTransformer(str(self._weights.folder), device="cpu")

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._model.encode(
            list(texts),
            batch_size=self._batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return l2_normalize(vectors)
