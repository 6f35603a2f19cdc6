"""No store method lets one owner see or change another owner's rows."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from docuchat.errors import NotFound
from docuchat.store import DocumentFilter, Store
from docuchat.store.sqlite import text_hash

from .conftest import Doc, make_doc

SECRET = "The merger with Globex closes in March.\n\nNobody outside finance may know."


@pytest.fixture
def secret(store: Store) -> tuple[Doc, str]:
    """Bob holds a document; Ann holds a different one with words in common."""
    doc = make_doc(SECRET, title="Board minutes")
    doc_id = doc.add(store, "bob", source="/shared/minutes.txt").document.id
    make_doc("Our March picnic is outside.", title="Picnic").add(store, "ann")
    for owner in ("ann", "bob"):
        for batch in store.texts_to_embed(owner, "m"):
            vectors = np.ones((len(batch), 4), dtype=np.float32) / 2
            store.put_embeddings(owner, "m", [t.text_hash for t in batch], vectors)
    return doc, doc_id


def _not_found_message(call: Callable[[], object]) -> str:
    with pytest.raises(NotFound) as caught:
        call()
    return str(caught.value)


def test_reads_by_id_say_the_same_for_foreign_and_unknown_ids(
    store: Store, secret: tuple[Doc, str]
) -> None:
    doc, doc_id = secret
    chunk_id = doc.chunks[0].id

    for foreign, unknown in [
        (lambda: store.get_document("ann", doc_id), lambda: store.get_document("ann", "x" * 16)),
        (lambda: store.document_text("ann", doc_id), lambda: store.document_text("ann", "x" * 16)),
        (
            lambda: store.remove_document("ann", doc_id),
            lambda: store.remove_document("ann", "x" * 16),
        ),
    ]:
        assert _not_found_message(foreign) == _not_found_message(unknown).replace("x" * 16, doc_id)
    assert _not_found_message(lambda: store.get_chunk("ann", chunk_id)) == f"no chunk {chunk_id!r}"
    assert (
        _not_found_message(lambda: store.get_chunks("ann", [chunk_id])) == f"no chunk {chunk_id!r}"
    )
    assert store.get_document("bob", doc_id).title == "Board minutes"  # still there


def test_listings_and_searches_only_return_the_owners_rows(
    store: Store, secret: tuple[Doc, str]
) -> None:
    doc, doc_id = secret
    everything = DocumentFilter(doc_ids=frozenset({doc_id}))

    assert [d.title for d in store.list_documents("ann")] == ["Picnic"]
    assert store.list_documents("ann", where=everything) == []
    assert {h.doc_id for h in store.search_bm25("ann", "merger March outside", k=50)} == {
        store.list_documents("ann")[0].id
    }
    assert store.search_bm25("ann", "merger globex finance") == []
    assert store.search_bm25("ann", "March", where=everything) == []
    query = np.ones(4, dtype=np.float32) / 2
    assert [h.doc_id for h in store.search_vectors("ann", "m", query, k=50)] == [
        store.list_documents("ann")[0].id
    ]
    assert store.search_vectors("ann", "m", query, where=everything) == []
    assert store.match_spans("ann", "merger", [doc.chunks[0].id]) == {}
    assert store.search_bm25("carol", "merger") == []
    assert store.search_vectors("carol", "m", query) == []


@pytest.mark.usefixtures("secret")
def test_embedding_work_is_per_owner(store: Store) -> None:
    make_doc("Fresh text for Ann only.").add(store, "ann")

    pending = [t.text for batch in store.texts_to_embed("ann", "m") for t in batch]
    assert pending == ["Fresh text for Ann only."]
    assert store.count_texts_to_embed("ann", "m") == 1
    assert store.count_texts_to_embed("bob", "m") == 0


def test_an_owner_cannot_write_vectors_for_texts_it_does_not_hold(
    store: Store, secret: tuple[Doc, str]
) -> None:
    doc, _ = secret
    bob_text = text_hash(doc.chunks[0].text)
    store.put_embeddings("carol", "m", [bob_text], np.ones((1, 4), dtype=np.float32))

    query = np.ones(4, dtype=np.float32) / 2
    assert store.search_vectors("carol", "m", query) == []
    [hit] = store.search_vectors("bob", "m", query)
    assert hit.score == pytest.approx(1.0)  # bob's unit vector, not carol's (ones)


def test_same_file_for_two_owners_is_two_documents(store: Store) -> None:
    doc = make_doc(SECRET)
    ann = doc.add(store, "ann").document
    bob = doc.add(store, "bob").document

    assert ann.id != bob.id
    store.remove_document("ann", ann.id)
    assert store.get_document("bob", bob.id) == bob
    assert [c.id for c in store.get_chunks("bob", [c.id for c in doc.chunks])] == [
        c.id for c in doc.chunks
    ]


def test_an_owner_finds_their_rows_below_many_better_ones_of_others(store: Store) -> None:
    for i in range(6):
        make_doc(f"Glaciers, glaciers, glaciers: report {i}.").add(store, "bob")
    mine = make_doc("One glacier among many other words about mountains and valleys.")
    doc_id = mine.add(store, "ann").document.id

    assert [h.doc_id for h in store.search_bm25("ann", "glaciers", k=1)] == [doc_id]
    assert len(store.search_bm25("bob", "glaciers", k=3)) == 3
