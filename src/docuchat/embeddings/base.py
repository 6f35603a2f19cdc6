"""The embedder interface: texts in, unit-length float32 vectors out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors whose dot product is their cosine similarity.

    ``name`` identifies the numerics (the model and its precision: the int8
    export of a model has a name of its own); ``space`` the vector space the
    vectors live in. One model's float32, bfloat16 and int8 variants share a
    space: stored vectors are keyed by it, so texts embedded by one variant are
    searched with queries embedded by another and never embedded again.
    Another model, or the same model name on another server, is another space.
    """

    @property
    def name(self) -> str: ...

    @property
    def space(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Return a ``(len(texts), dim)`` float32 array of L2-normalised rows."""
        ...


def l2_normalize(vectors: npt.NDArray[np.floating]) -> Vectors:
    """Scale each row to unit length (all-zero rows stay zero) as float32."""
    out = np.array(vectors, dtype=np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out /= norms
    return out
