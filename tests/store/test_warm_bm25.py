"""``bm25_is_warm``: whether a search may run in place on an event loop (no loading, small)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docuchat.embeddings import get_embedder
from docuchat.search import HybridSearcher
from docuchat.store import SQLiteStore
from docuchat.store import sqlite as sqlite_store

from .conftest import Backend, make_doc


@pytest.fixture
def store(db_path: Path) -> SQLiteStore:
    return SQLiteStore(db_path)


def test_warm_once_searched_and_cold_again_after_the_owner_writes(store: SQLiteStore) -> None:
    make_doc("The moon pulls the tides.").add(store, "ann")
    make_doc("Bees make honey.").add(store, "bob")
    assert not store.bm25_is_warm("ann")  # the first search loads the index
    store.search_bm25("ann", "moon")
    assert store.bm25_is_warm("ann")
    assert not store.bm25_is_warm("bob")

    make_doc("Honey is sweet.", title="Another").add(store, "bob")
    assert store.bm25_is_warm("ann")  # another owner's write leaves ann's index valid
    make_doc("The sun pulls the tides too.", title="Sun").add(store, "ann")
    assert not store.bm25_is_warm("ann")  # the next search rebuilds it


def test_a_large_owner_is_never_searched_in_place(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_store, "WARM_BM25_MAX_CHUNKS", 1)
    make_doc("The moon pulls the tides.\n\nThe sun pulls too.", chunk_size=30).add(store, "ann")
    store.search_bm25("ann", "moon")
    assert not store.bm25_is_warm("ann")


def test_a_search_that_embeds_its_query_is_not_run_in_place(store: SQLiteStore) -> None:
    make_doc("The moon pulls the tides.").add(store, "ann")
    store.search_bm25("ann", "moon")
    assert HybridSearcher(store).searches_in_place("ann")
    assert not HybridSearcher(store, get_embedder("hash")).searches_in_place("ann")


def test_postgres_searches_are_never_in_place(postgres: Backend) -> None:
    store = postgres.open()
    try:
        make_doc("The moon pulls the tides.").add(store, "ann")
        store.search_bm25("ann", "moon")
        assert not store.bm25_is_warm("ann")
    finally:
        store.close()


def test_every_small_owner_stays_warm(store: SQLiteStore) -> None:
    owners = [f"user{u}" for u in range(20)]
    for owner in owners:
        make_doc(f"The secret code of {owner} is kept in the safe.").add(store, owner)
        store.search_bm25(owner, "secret code")
    assert all(store.bm25_is_warm(owner) for owner in owners)


def test_the_cache_keeps_to_its_memory_budget_but_always_keeps_the_newest(db_path: Path) -> None:
    store = SQLiteStore(db_path, cache_bytes=1)  # smaller than any index
    for owner in ("ann", "bob"):
        make_doc("The moon pulls the tides.").add(store, owner)
        store.search_bm25(owner, "moon")
    assert not store.bm25_is_warm("ann")
    assert store.bm25_is_warm("bob")
    store.close()
