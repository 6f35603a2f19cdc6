"""The embedding cache: keyed by the text embedded (title and chunk text) and the model,
resumable, never recomputed."""

from __future__ import annotations

import numpy as np
import pytest

from docuchat.store import SQLiteStore

from .conftest import Doc, make_doc

# With chunk_size=100 and no overlap, each of these paragraphs is one chunk.
P1 = "Glaciers store most of the fresh water on Earth and they are shrinking fast."
P2 = "Volcanic ash clouds ground aircraft because the glass particles melt in engines."
P3 = "Tidal ranges depend on the shape of the coastline as much as on the moon."
P4 = "Desert dunes migrate downwind by a few metres each year in steady winds."


def _doc(*paragraphs: str, title: str = "Report") -> Doc:
    return make_doc("\n\n".join(paragraphs), title=title, chunk_size=100, overlap=0)


def _embedded(*paragraphs: str, title: str = "Report") -> list[str]:
    """The texts embedded for these chunks: the title, a blank line, the chunk text."""
    return [f"{title}\n\n{paragraph}" for paragraph in paragraphs]


def _pending(store: SQLiteStore, model: str = "m", batch_size: int = 64) -> list[list[str]]:
    return [
        [t.text for t in batch]
        for batch in store.texts_to_embed("ann", model, batch_size=batch_size)
    ]


def _embed_all(store: SQLiteStore, model: str = "m") -> None:
    for batch in store.texts_to_embed("ann", model):
        store.put_embeddings(
            "ann", model, [t.text_hash for t in batch], np.ones((len(batch), 4), np.float32) / 2
        )


def test_identical_chunk_texts_are_embedded_once_across_documents(store: SQLiteStore) -> None:
    _doc(P1, P2).add(store, "ann")
    _doc(P1, P3).add(store, "ann")  # another document with the same title, sharing P1

    assert _pending(store) == [_embedded(P1, P2, P3)]
    assert store.count_texts_to_embed("ann", "m") == 3
    _embed_all(store)
    assert _pending(store) == []
    assert len(store.search_vectors("ann", "m", np.ones(4, np.float32), k=10)) == 4  # P1 twice


def test_an_interrupted_run_resumes_with_what_is_missing(store: SQLiteStore) -> None:
    _doc(P1, P2, P3, P4).add(store, "ann")
    first = next(store.texts_to_embed("ann", "m", batch_size=2))
    store.put_embeddings("ann", "m", [t.text_hash for t in first], np.ones((2, 4), np.float32) / 2)
    # ... and the run stops here

    assert store.count_texts_to_embed("ann", "m") == 2
    assert _pending(store, batch_size=2) == [_embedded(P3, P4)]


def test_replacing_a_document_only_embeds_its_new_chunk_texts(store: SQLiteStore) -> None:
    _doc(P1, P2, P3).add(store, "ann", source="/f")
    _embed_all(store)

    result = _doc(P1, P4, P3).add(store, "ann", source="/f")

    assert result.status == "replaced"
    assert _pending(store) == [_embedded(P4)]
    hits = store.search_vectors("ann", "m", np.ones(4, np.float32), k=10)
    assert len(hits) == 2  # P1 and P3 kept their vectors through the replacement


def test_models_have_separate_caches(store: SQLiteStore) -> None:
    _doc(P1).add(store, "ann")
    _embed_all(store, "model-a")

    assert _pending(store, "model-a") == []
    assert _pending(store, "model-b") == [_embedded(P1)]
    assert store.search_vectors("ann", "model-b", np.ones(4, np.float32)) == []


@pytest.mark.parametrize("batch_size", [1, 3])
def test_batches_respect_the_batch_size(store: SQLiteStore, batch_size: int) -> None:
    _doc(P1, P2, P3, P4).add(store, "ann")
    batches = _pending(store, batch_size=batch_size)
    assert all(len(batch) <= batch_size for batch in batches)
    assert [text for batch in batches for text in batch] == _embedded(P1, P2, P3, P4)


def test_a_new_title_is_a_new_text_to_embed(store: SQLiteStore) -> None:
    _doc(P1, P2).add(store, "ann", source="/f")
    _embed_all(store)

    _doc(P1, P2, title="Report, second edition").add(store, "ann", source="/f")

    assert _pending(store) == [_embedded(P1, P2, title="Report, second edition")]
    assert make_doc(P3, title="").add(store, "ann").status == "added"
    assert _pending(store)[0][-1] == P3  # no title: the chunk text alone
