"""A hashed bag-of-words embedder: no model, no dependencies, deterministic.

Each lower-cased word adds ``±log(1 + count)`` to one of ``dim`` buckets chosen by
its CRC-32 (the sign from another bit of the same hash, so collisions cancel on
average rather than pile up). Texts that share words get similar vectors. It is
a lexical method, so it adds little next to BM25; it exists for tests and for
installs without the ``embed`` extra that still want the vector code path.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from collections.abc import Sequence

import numpy as np

from docuchat.embeddings.base import Vectors, l2_normalize
from docuchat.errors import ConfigError

_WORD = re.compile(r"\w+")


class HashingEmbedder:
    DEFAULT_DIM = 256

    def __init__(self, dim: int = DEFAULT_DIM) -> None:
        if dim < 2:
            raise ConfigError(f"hash embedder dimension must be at least 2, got {dim}")
        self._dim = dim

    @property
    def name(self) -> str:
        return f"hash-{self._dim}"

    @property
    def space(self) -> str:
        return self.name

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word, count in Counter(_WORD.findall(text.lower())).items():
                digest = zlib.crc32(word.encode())
                sign = 1.0 if digest & 0x80000000 else -1.0
                out[row, digest % self._dim] += sign * np.log1p(count)
        return l2_normalize(out)
