"""Vector search: exact against brute force, filters, cache invalidation, the IVF index."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from docuchat.errors import StoreError
from docuchat.store import DocumentFilter, SQLiteStore, Store
from docuchat.store.vector_index import IVFIndex, rows_in, search, search_ranges, top_k

from .conftest import Backend, make_doc

DIM = 16


def _unit(rows: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    unit: npt.NDArray[np.float32] = (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(
        np.float32
    )
    return unit


def _clustered(n: int, dim: int, clusters: int, seed: int = 0) -> npt.NDArray[np.float32]:
    """Unit vectors scattered around random centres, like real embeddings are."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(clusters, dim))
    return _unit(centres[rng.integers(clusters, size=n)] + 0.3 * rng.normal(size=(n, dim)))


def _fill(store: Store, vectors: npt.NDArray[np.float32], name: str = "Document") -> list[str]:
    """One single-chunk document per vector; returns the document ids in order."""
    ids = []
    for i, vector in enumerate(vectors):
        doc = make_doc(f"{name} number {i}.", metadata={"parity": i % 2})
        ids.append(doc.add(store, "ann").document.id)
        [[pending]] = list(store.texts_to_embed("ann", "m"))
        store.put_embeddings("ann", "m", [pending.text_hash], vector[None, :])
    return ids


@pytest.fixture
def filled(store: Store) -> tuple[list[str], npt.NDArray[np.float32]]:
    vectors = _unit(np.random.default_rng(1).normal(size=(120, DIM)))
    return _fill(store, vectors), vectors


def test_exact_search_is_the_brute_force_ranking(
    store: Store, filled: tuple[list[str], npt.NDArray[np.float32]]
) -> None:
    ids, vectors = filled
    query = _unit(np.random.default_rng(2).normal(size=DIM))
    expected = np.argsort(-(vectors @ query), kind="stable")[:10]

    hits = store.search_vectors("ann", "m", query, k=10)

    assert [h.doc_id for h in hits] == [ids[i] for i in expected]
    assert [h.score for h in hits] == pytest.approx((vectors @ query)[expected].tolist(), abs=1e-5)
    assert store.search_vectors("ann", "m", query, k=10, approximate=True) == hits
    assert len(store.search_vectors("ann", "m", query, k=500)) == len(ids)
    assert store.search_vectors("ann", "other-model", query) == []


def test_filters_restrict_vector_search(
    store: Store, filled: tuple[list[str], npt.NDArray[np.float32]]
) -> None:
    ids, vectors = filled
    query = vectors[7]
    assert store.search_vectors("ann", "m", query, k=1)[0].doc_id == ids[7]

    only = DocumentFilter(doc_ids=frozenset({ids[3], ids[9]}))
    assert {h.doc_id for h in store.search_vectors("ann", "m", query, k=5, where=only)} == {
        ids[3],
        ids[9],
    }
    even = store.search_vectors(
        "ann", "m", query, k=200, where=DocumentFilter(metadata={"parity": 0})
    )
    assert {h.doc_id for h in even} == set(ids[::2])


def test_a_write_by_another_store_instance_invalidates_the_cached_matrix(
    store: Store, backend: Backend, filled: tuple[list[str], npt.NDArray[np.float32]]
) -> None:
    ids, _ = filled
    query = _unit(np.ones(DIM))
    before = store.search_vectors("ann", "m", query, k=1)[0]

    other = backend.open()
    [new_id] = _fill(other, query[None, :], name="Late document")
    other.remove_document("ann", ids[0])
    other.close()

    after = store.search_vectors("ann", "m", query, k=len(ids) + 1)
    assert after[0].doc_id == new_id != before.doc_id
    assert ids[0] not in {h.doc_id for h in after}


def test_vectors_of_the_wrong_shape_are_refused(
    store: Store, filled: tuple[list[str], npt.NDArray[np.float32]]
) -> None:
    make_doc("A late document.").add(store, "ann")
    [[pending]] = list(store.texts_to_embed("ann", "m"))

    with pytest.raises(StoreError, match="have 16 dimensions, not 8"):
        store.put_embeddings("ann", "m", [pending.text_hash], np.ones((1, 8), dtype=np.float32))
    with pytest.raises(StoreError, match="expected 1 vectors"):
        store.put_embeddings("ann", "m", [pending.text_hash], np.ones((2, DIM), dtype=np.float32))
    with pytest.raises(StoreError, match="finite"):
        store.put_embeddings("ann", "m", [pending.text_hash], np.full((1, DIM), np.nan, np.float32))
    with pytest.raises(StoreError, match="query vector has 3 dimensions"):
        store.search_vectors("ann", "m", np.ones(3, dtype=np.float32))
    assert store.count_texts_to_embed("ann", "m") == 1  # nothing was written


def test_store_uses_the_ivf_index_on_large_collections_with_high_recall(db_path: Path) -> None:
    store = SQLiteStore(db_path, nprobe=6, approximate_min_vectors=100)  # 6 of 20 lists
    vectors = _clustered(400, DIM, clusters=8)
    ids = _fill(store, vectors)
    queries = _clustered(20, DIM, clusters=8, seed=5)

    def recall() -> float:
        return float(
            np.mean(
                [
                    len(
                        {h.chunk_id for h in store.search_vectors("ann", "m", q, k=10)}
                        & {
                            h.chunk_id
                            for h in store.search_vectors("ann", "m", q, k=10, approximate=True)
                        }
                    )
                    / 10
                    for q in queries
                ]
            )
        )

    assert recall() >= 0.9
    even = DocumentFilter(metadata={"parity": 0})
    hits = store.search_vectors("ann", "m", queries[0], k=50, where=even, approximate=True)
    assert hits and {h.doc_id for h in hits} <= set(ids[::2])
    store.nprobe = 1
    assert recall() < 0.9  # one list is not enough: the index, not exact search, answered
    store.close()


def test_ivf_lists_partition_the_rows_and_probing_all_lists_is_exact() -> None:
    matrix = _clustered(2000, DIM, clusters=20)
    index = IVFIndex.build(matrix, n_lists=25)
    reordered = matrix[index.order]

    assert sorted(index.order.tolist()) == list(range(2000))
    assert index.offsets[0] == 0 and index.offsets[-1] == 2000
    query = matrix[0]
    everything = index.probe(query, nprobe=25)
    assert rows_in(everything).tolist() == list(range(2000))
    rows, _ = search_ranges(reordered, query, 10, everything)
    assert index.order[rows].tolist() == search(matrix, query, 10)[0].tolist()
    few = index.probe(query, nprobe=3)
    assert len(few) == 3 and 0 in index.order[rows_in(few)]


def test_top_k_orders_best_first_with_ties_by_position() -> None:
    scores = np.array([0.5, 0.9, 0.5, 0.1, 0.9], dtype=np.float32)
    assert top_k(scores, 3).tolist() == [1, 4, 0]
    assert top_k(scores, 10).tolist() == [1, 4, 0, 2, 3]
    assert top_k(scores, 0).tolist() == []
