"""What only the PostgreSQL store has: migrations, BM25 in SQL, HNSW, a pool shared by threads.

The behaviour both stores share is tested once, on both, by the other tests here.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TypeVar

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector
from psycopg import sql

from docuchat.errors import StoreError
from docuchat.store import AddResult, DocumentFilter, open_store
from docuchat.store.postgres import BM25_B, BM25_K1, PostgresStore, _vectors_sql
from docuchat.store.postgres_schema import MIGRATIONS

from .conftest import Backend, make_doc

DIM = 16
T = TypeVar("T")


@pytest.fixture
def store(postgres: Backend) -> Iterator[PostgresStore]:
    opened = open_store(postgres.location)
    assert isinstance(opened, PostgresStore)
    yield opened
    opened.close()


def _run_in_threads(calls: list[Callable[[], T]]) -> list[T]:
    """Start the calls together (a barrier), each on its own thread; their results in order."""
    barrier = threading.Barrier(len(calls))

    def start(call: Callable[[], T]) -> T:
        barrier.wait()
        return call()

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(start, calls))


def test_migrations_run_once_even_when_several_workers_open_a_new_database(
    postgres: Backend,
) -> None:
    stores = _run_in_threads([lambda: PostgresStore(postgres.location) for _ in range(4)])

    names = [fn.__name__ for fn in MIGRATIONS]
    assert sorted((store.applied_migrations for store in stores), key=len) == [[], [], [], names]
    with psycopg.connect(postgres.location) as conn:
        assert [n for (n,) in conn.execute("SELECT name FROM migrations ORDER BY name")] == names
    for store in stores:
        store.close()


def test_a_server_that_cannot_be_reached_is_a_store_error() -> None:
    with pytest.raises(StoreError, match="cannot open the PostgreSQL database"):
        open_store("postgresql://docuchat@127.0.0.1:9/docuchat?connect_timeout=2")


def _bm25(tf: int, df: int, n: int, length: int, avgdl: float) -> float:
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    return idf * tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * length / avgdl))


def test_bm25_is_okapi_bm25_over_the_owners_own_statistics(store: PostgresStore) -> None:
    # Words that stem to themselves; a chunk's length counts its title's words too.
    texts = ["river stone river", "stone hill", "river", "hill hill hill valley"]
    ids = [make_doc(text, title="Map").add(store, "ann").document.id for text in texts]
    lengths = [len(text.split()) + 1 for text in texts]
    n, avgdl = len(texts), sum(lengths) / len(texts)
    expected = {
        ids[0]: _bm25(2, 2, n, lengths[0], avgdl) + _bm25(1, 2, n, lengths[0], avgdl),
        ids[1]: _bm25(1, 2, n, lengths[1], avgdl),
        ids[2]: _bm25(1, 2, n, lengths[2], avgdl),
    }

    def scores() -> dict[str, float]:
        return {hit.doc_id: hit.score for hit in store.search_bm25("ann", "river stones", k=10)}

    assert scores() == pytest.approx(expected)
    for i in range(20):  # another owner's many rivers change nothing for ann
        make_doc(f"river river river number {i}").add(store, "bob")
    assert scores() == pytest.approx(expected)
    assert [h.doc_id for h in store.search_bm25("ann", "river stones", k=1)] == [ids[0]]


def test_writers_on_many_threads_share_the_pool_and_same_content_is_stored_once(
    store: PostgresStore, postgres: Backend
) -> None:
    docs = [make_doc(f"Report {i} on glaciers and tides.", chunk_size=200) for i in range(6)]
    calls: list[Callable[[], AddResult]] = [lambda d=doc: d.add(store, "ann") for doc in docs]
    calls += [lambda: docs[0].add(store, "ann") for _ in range(4)]  # the same file, at once

    results = _run_in_threads(calls)

    assert Counter(result.status for result in results) == {"added": 6, "unchanged": 4}
    assert postgres.row_counts()[:2] == (6, 6)
    assert len(store.search_bm25("ann", "glaciers", k=50)) == 6
    postgres.check_index()


def test_text_postgres_cannot_hold_is_a_store_error_and_nothing_is_written(
    store: PostgresStore, postgres: Backend
) -> None:
    doc = make_doc("A NUL \x00 inside the text.")
    with pytest.raises(StoreError, match="NUL"):
        doc.add(store, "ann")
    assert postgres.row_counts() == (0, 0, 0)


def _unit_rows(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(8, DIM))
    rows = centres[rng.integers(8, size=n)] + 0.3 * rng.normal(size=(n, DIM))
    unit: np.ndarray = (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)
    return unit


def _fill(store: PostgresStore, owner: str, vectors: np.ndarray) -> list[str]:
    """One single-chunk document per vector; their ids."""
    ids = []
    for i, vector in enumerate(vectors):
        doc = make_doc(f"{owner} note {i}")
        ids.append(doc.add(store, owner).document.id)
        [[pending]] = list(store.texts_to_embed(owner, "m"))
        store.put_embeddings(owner, "m", [pending.text_hash], vector[None, :])
    return ids


def test_approximate_search_uses_the_hnsw_index_and_falls_back_to_exact(
    store: PostgresStore, postgres: Backend
) -> None:
    ann = _fill(store, "ann", _unit_rows(300, seed=1))
    carol = _fill(store, "carol", _unit_rows(3, seed=2))
    queries = _unit_rows(10, seed=3)
    with pytest.raises(StoreError, match="no 'other' vectors"):
        store.create_vector_index("other")
    store.create_vector_index("m")

    # The approximate query matches the partial index's expression and predicate.
    with psycopg.connect(postgres.location) as conn:
        register_vector(conn)
        conn.execute("SET enable_sort = off")  # else, with a table this small, sorting is cheaper
        plan = conn.execute(
            sql.SQL("EXPLAIN {}").format(_vectors_sql("", model="m", dim=DIM)),
            {"owner": "ann", "q": queries[0], "k": 10, "fetch": 40},
        ).fetchall()
    assert "embeddings_hnsw_" in "\n".join(line for (line,) in plan)

    def top(
        owner: str, query: np.ndarray, approximate: bool, where: DocumentFilter | None = None
    ) -> list[str]:
        hits = store.search_vectors(owner, "m", query, k=10, approximate=approximate, where=where)
        return [hit.doc_id for hit in hits]

    def ann_by_distance(query: np.ndarray) -> list[str]:
        return [hit.doc_id for hit in store.search_vectors("ann", "m", query, k=len(ann))]

    recall = np.mean(
        [len(set(top("ann", q, True)) & set(top("ann", q, False))) / 10 for q in queries]
    )
    assert recall >= 0.9
    # The 12 farthest documents are none of the index's candidates: exact search answers.
    far = DocumentFilter(doc_ids=frozenset(ann_by_distance(queries[0])[-12:]))
    assert top("ann", queries[0], True, where=far) == top("ann", queries[0], False, where=far)
    assert len(top("ann", queries[0], True, where=far)) == 10
    assert sorted(top("carol", queries[0], True)) == sorted(carol)  # fewer than k of carol's
    assert set(top("ann", queries[0], True)) <= set(ann)


def test_a_model_has_one_dimension_for_every_owner(store: PostgresStore) -> None:
    make_doc("Ann's words.").add(store, "ann")
    make_doc("Bob's words.").add(store, "bob")
    [[ann]] = list(store.texts_to_embed("ann", "m"))
    [[bob]] = list(store.texts_to_embed("bob", "m"))
    store.put_embeddings("ann", "m", [ann.text_hash], np.ones((1, 4), np.float32))

    with pytest.raises(StoreError, match="have 4 dimensions, not 8"):
        store.put_embeddings("bob", "m", [bob.text_hash], np.ones((1, 8), np.float32))
    assert store.count_texts_to_embed("bob", "m") == 1


def test_chunks_keep_where_their_later_pages_begin(store: PostgresStore) -> None:
    doc = make_doc("First page words.\n\nSecond page words.")
    chunk = replace(doc.chunks[0], page_end=2, page_breaks=((19, 2),))
    store.add_document("ann", doc.parsed, [chunk], content_hash=doc.hash)

    stored = store.get_chunk("ann", chunk.id)
    assert (stored.page, stored.page_end, stored.page_breaks) == (1, 2, ((19, 2),))
    assert (stored.page_at(5), stored.page_at(25)) == (1, 2)
