"""The embedding cache: keyed by chunk text and model, resumable, never recomputed."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import numpy as np
import psycopg
import pytest

from docuchat.store import Store
from docuchat.store.migrations import MIGRATIONS as SQLITE_MIGRATIONS
from docuchat.store.migrations import MINILM_PRECISIONS, MINILM_SPACE
from docuchat.store.postgres_schema import MIGRATIONS as POSTGRES_MIGRATIONS

from .conftest import Backend, make_doc

# With chunk_size=100 and no overlap, each of these paragraphs is one chunk.
P1 = "Glaciers store most of the fresh water on Earth and they are shrinking fast."
P2 = "Volcanic ash clouds ground aircraft because the glass particles melt in engines."
P3 = "Tidal ranges depend on the shape of the coastline as much as on the moon."
P4 = "Desert dunes migrate downwind by a few metres each year in steady winds."


def _pending(store: Store, model: str = "m", batch_size: int = 64) -> list[list[str]]:
    return [
        [t.text for t in batch]
        for batch in store.texts_to_embed("ann", model, batch_size=batch_size)
    ]


def _embed_all(store: Store, model: str = "m") -> None:
    for batch in store.texts_to_embed("ann", model):
        store.put_embeddings(
            "ann", model, [t.text_hash for t in batch], np.ones((len(batch), 4), np.float32) / 2
        )


def test_identical_chunk_texts_are_embedded_once_across_documents(store: Store) -> None:
    make_doc("\n\n".join([P1, P2]), title="A", chunk_size=100, overlap=0).add(store, "ann")
    make_doc("\n\n".join([P1, P3]), title="B", chunk_size=100, overlap=0).add(store, "ann")

    assert _pending(store) == [[P1, P2, P3]]
    assert store.count_texts_to_embed("ann", "m") == 3
    _embed_all(store)
    assert _pending(store) == []
    assert len(store.search_vectors("ann", "m", np.ones(4, np.float32), k=10)) == 4  # P1 twice


def test_an_interrupted_run_resumes_with_what_is_missing(store: Store) -> None:
    make_doc("\n\n".join([P1, P2, P3, P4]), chunk_size=100, overlap=0).add(store, "ann")
    first = next(store.texts_to_embed("ann", "m", batch_size=2))
    store.put_embeddings("ann", "m", [t.text_hash for t in first], np.ones((2, 4), np.float32) / 2)
    # ... and the run stops here

    assert store.count_texts_to_embed("ann", "m") == 2
    assert _pending(store, batch_size=2) == [[P3, P4]]


def test_replacing_a_document_only_embeds_its_new_chunk_texts(store: Store) -> None:
    make_doc("\n\n".join([P1, P2, P3]), chunk_size=100, overlap=0).add(store, "ann", source="/f")
    _embed_all(store)

    result = make_doc("\n\n".join([P1, P4, P3]), chunk_size=100, overlap=0).add(
        store, "ann", source="/f"
    )

    assert result.status == "replaced"
    assert _pending(store) == [[P4]]
    hits = store.search_vectors("ann", "m", np.ones(4, np.float32), k=10)
    assert len(hits) == 2  # P1 and P3 kept their vectors through the replacement


def test_models_have_separate_caches(store: Store) -> None:
    make_doc(P1).add(store, "ann")
    _embed_all(store, "model-a")

    assert _pending(store, "model-a") == []
    assert _pending(store, "model-b") == [[P1]]
    assert store.search_vectors("ann", "model-b", np.ones(4, np.float32)) == []


@pytest.mark.parametrize("batch_size", [1, 3])
def test_batches_respect_the_batch_size(store: Store, batch_size: int) -> None:
    make_doc("\n\n".join([P1, P2, P3, P4]), chunk_size=100, overlap=0).add(store, "ann")
    batches = _pending(store, batch_size=batch_size)
    assert all(len(batch) <= batch_size for batch in batches)
    assert [text for batch in batches for text in batch] == [P1, P2, P3, P4]


def _forget(backend: Backend, migration: str) -> None:
    """Make the next open apply ``migration`` again, as on a database made before it."""
    if backend.name == "sqlite":
        with closing(sqlite3.connect(backend.location)) as db, db:
            db.execute("DELETE FROM migrations WHERE name = ?", (migration,))
    else:
        with psycopg.connect(backend.location) as conn:
            conn.execute("DELETE FROM migrations WHERE name = %s", (migration,))


def test_vectors_kept_per_precision_move_into_their_models_space(backend: Backend) -> None:
    store = backend.open()
    make_doc("\n\n".join([P1, P2, P3]), chunk_size=100, overlap=0).add(store, "ann")
    hashes = {t.text: t.text_hash for batch in store.texts_to_embed("ann", "x") for t in batch}
    eye = np.eye(4, dtype=np.float32)
    # As docuchat stored them before vectors were keyed by space: P2 under both precisions.
    store.put_embeddings("ann", MINILM_PRECISIONS[0], [hashes[P1], hashes[P2]], eye[[0, 1]])
    store.put_embeddings("ann", MINILM_PRECISIONS[1], [hashes[P2], hashes[P3]], eye[[2, 3]])
    store.close()
    migrations = SQLITE_MIGRATIONS if backend.name == "sqlite" else POSTGRES_MIGRATIONS
    _forget(backend, next(m.__name__ for m in migrations if "vector_space" in m.__name__))

    store = backend.open()
    try:
        assert store.count_texts_to_embed("ann", MINILM_SPACE) == 0
        for name in MINILM_PRECISIONS:
            assert store.count_texts_to_embed("ann", name) == 3  # nothing left under old keys
        best = store.search_vectors("ann", MINILM_SPACE, eye[1], k=3)
        assert best[0].score == pytest.approx(1.0)  # P2 kept its more precise (bf16) vector
        assert store.search_vectors("ann", MINILM_SPACE, eye[2], k=1)[0].score < 0.5
        assert len(store.search_vectors("ann", MINILM_SPACE, eye[3], k=3)) == 3
    finally:
        store.close()
