"""What every embedder promises, checked on the dependency-free one."""

from __future__ import annotations

import numpy as np
import pytest

from docuchat.embeddings import Embedder, HashingEmbedder, get_embedder
from docuchat.errors import ConfigError

TEXTS = [
    "Vitamin D deficiency raises the risk of bone fractures.",
    "Low vitamin D levels are linked to fractures in older adults.",
    "The stock market fell sharply on Monday.",
]


@pytest.fixture
def embedder() -> Embedder:
    built = get_embedder("hash")
    assert built is not None
    return built


def test_rows_are_unit_length_float32(embedder: Embedder) -> None:
    vectors = embedder.embed(TEXTS)
    assert isinstance(embedder, Embedder)
    assert vectors.shape == (3, embedder.dim) == (3, 256)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)


def test_deterministic_and_independent_of_batching(embedder: Embedder) -> None:
    together = embedder.embed(TEXTS)
    alone = np.vstack([HashingEmbedder(256).embed([text]) for text in TEXTS])
    np.testing.assert_array_equal(together, alone)


def test_shared_words_mean_similar_vectors(embedder: Embedder) -> None:
    first, related, unrelated = embedder.embed(TEXTS)
    assert first @ related > first @ unrelated + 0.1


def test_nothing_in_nothing_out(embedder: Embedder) -> None:
    assert embedder.embed([]).shape == (0, 256)
    # A text without words has no direction: a zero row, never NaN.
    np.testing.assert_array_equal(embedder.embed(["  ...  "]), np.zeros((1, 256), np.float32))


def test_the_name_tells_the_numerics_apart() -> None:
    assert HashingEmbedder(64).name != HashingEmbedder(128).name
    assert HashingEmbedder().name == "hash-256"


@pytest.mark.parametrize("spec", ["hash:1", "hash:x", "hash:-3"])
def test_bad_hash_dimension_is_a_config_error(spec: str) -> None:
    with pytest.raises(ConfigError, match="dimension"):
        get_embedder(spec)
