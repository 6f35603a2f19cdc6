"""Adding, deduplicating, replacing, reading and removing documents."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pytest

from docuchat.corpus.types import Chunk
from docuchat.errors import NotFound, StoreError
from docuchat.store import DocumentFilter, Store

from .conftest import Backend, make_doc

LONG = "\n\n".join(
    f"Paragraph {i} talks about {topic} and nothing else worth indexing here."
    for i, topic in enumerate(["glaciers", "volcanoes", "tides", "deserts", "forests"] * 6)
)


def test_added_document_reads_back_with_exact_chunk_offsets(store: Store) -> None:
    doc = make_doc(LONG, title="Nature", metadata={"lang": "en"}, chunk_size=300)
    result = doc.add(store, "ann", source="/docs/nature.txt")

    assert result.status == "added"
    record = result.document
    assert (record.title, record.source, record.content_hash) == (
        "Nature",
        "/docs/nature.txt",
        doc.hash,
    )
    assert (record.chunk_count, record.char_count, record.page_count) == (
        len(doc.chunks),
        len(LONG),
        1,
    )
    assert record.metadata == {"lang": "en"}
    assert store.get_document("ann", record.id) == record
    assert store.list_documents("ann") == [record]
    for chunk in doc.chunks:
        stored = store.get_chunk("ann", chunk.id)
        assert (stored.doc_id, stored.title, stored.index) == (record.id, "Nature", chunk.index)
        assert (stored.start, stored.end, stored.text) == (chunk.start, chunk.end, chunk.text)
        assert store.document_text("ann", record.id, stored.start, stored.end) == stored.text


def test_document_text_slices_like_python_including_non_ascii(store: Store) -> None:
    text = "Zoë’s café 🍵 serves crème brûlée.\n\nSecond paragraph."
    record = make_doc(text).add(store, "ann").document

    assert store.document_text("ann", record.id) == text
    assert store.document_text("ann", record.id, 6, 10) == text[6:10]
    assert store.document_text("ann", record.id, 11, 13) == text[11:13]
    assert store.document_text("ann", record.id, 40, 1000) == text[40:1000]
    with pytest.raises(StoreError, match="invalid text span"):
        store.document_text("ann", record.id, 5, 2)


def test_same_content_twice_is_stored_once(store: Store, backend: Backend) -> None:
    doc = make_doc(LONG)
    first = doc.add(store, "ann", source="/a.txt")
    second = doc.add(store, "ann", source="/copy-of-a.txt")

    assert second.status == "unchanged"
    assert second.document == first.document
    assert backend.row_counts()[:2] == (1, len(doc.chunks))


def test_changed_file_from_same_source_replaces_chunks_and_keeps_id(
    store: Store, backend: Backend
) -> None:
    old = make_doc("Alpine glaciers are retreating.\n\nIce cores record old climates.")
    new = make_doc("Coral reefs are bleaching.\n\nOcean heat is rising.", title="Reefs")
    first = old.add(store, "ann", source="/notes.txt")
    second = new.add(store, "ann", source="/notes.txt")

    assert second.status == "replaced"
    assert second.document.id == first.document.id
    assert second.document.title == "Reefs"
    assert [h.doc_id for h in store.search_bm25("ann", "coral reefs")] == [first.document.id]
    assert store.search_bm25("ann", "glaciers") == []
    with pytest.raises(NotFound):
        store.get_chunk("ann", old.chunks[0].id)
    assert backend.row_counts()[:2] == (1, len(new.chunks))
    backend.check_index()


def test_failure_midway_through_a_replacement_leaves_the_old_version_intact(
    store: Store, backend: Backend
) -> None:
    old = make_doc(LONG, title="Old", chunk_size=300)
    new = make_doc(LONG.replace("tides", "currents"), title="New", chunk_size=300)
    record = old.add(store, "ann", source="/notes.txt").document

    def chunks_then_crash() -> Iterator[Chunk]:
        yield from new.chunks[:2]
        raise RuntimeError("chunker crashed")

    with pytest.raises(RuntimeError, match="chunker crashed"):
        store.add_document(
            "ann", new.parsed, chunks_then_crash(), content_hash=new.hash, source="/notes.txt"
        )

    assert store.get_document("ann", record.id) == record
    assert [c.id for c in store.get_chunks("ann", [c.id for c in old.chunks])] == [
        c.id for c in old.chunks
    ]
    assert store.search_bm25("ann", "tides")
    assert store.search_bm25("ann", "currents") == []
    backend.check_index()


def test_chunks_that_do_not_match_the_text_are_refused_and_nothing_is_written(
    store: Store, backend: Backend
) -> None:
    doc = make_doc(LONG, chunk_size=300)
    wrong = [*doc.chunks[:-1], replace(doc.chunks[-1], text="something else")]

    with pytest.raises(StoreError, match="does not match the document text"):
        store.add_document("ann", doc.parsed, wrong, content_hash=doc.hash)
    assert backend.row_counts() == (0, 0, 0)


def test_duplicate_chunk_ids_are_a_store_error_and_roll_back(
    store: Store, backend: Backend
) -> None:
    doc = make_doc(LONG, chunk_size=300)
    with pytest.raises(StoreError):
        store.add_document("ann", doc.parsed, [doc.chunks[0]] * 2, content_hash=doc.hash)
    assert backend.row_counts() == (0, 0, 0)


def test_remove_cascades_to_chunks_index_rows_and_vectors(store: Store, backend: Backend) -> None:
    keep = make_doc("Volcanoes erupt lava.", title="Keep")
    gone = make_doc(LONG, title="Gone", chunk_size=300)
    kept = keep.add(store, "ann").document
    removed = gone.add(store, "ann").document
    for batch in store.texts_to_embed("ann", "m"):
        store.put_embeddings(
            "ann", "m", [t.text_hash for t in batch], np.eye(len(batch), 8, dtype=np.float32)
        )

    store.remove_document("ann", removed.id)

    assert [d.id for d in store.list_documents("ann")] == [kept.id]
    assert backend.row_counts() == (1, 1, 1)
    assert {h.doc_id for h in store.search_bm25("ann", "glaciers volcanoes")} == {kept.id}
    assert {h.doc_id for h in store.search_vectors("ann", "m", np.ones(8, dtype=np.float32))} == {
        kept.id
    }
    with pytest.raises(NotFound):
        store.get_document("ann", removed.id)
    with pytest.raises(NotFound):
        store.remove_document("ann", removed.id)
    backend.check_index()


def test_list_documents_filters_by_type_title_metadata_and_id(store: Store) -> None:
    a = make_doc(
        "one",
        title="Annual Report",
        media_type="application/pdf",
        metadata={"year": 2023, "team": "ops", "final": True},
    )
    b = make_doc(
        "two",
        title="Meeting notes",
        media_type="text/markdown",
        metadata={"year": 2024, "team": "ops", "final": False},
    )
    ida, idb = a.add(store, "ann").document.id, b.add(store, "ann").document.id

    def ids(where: DocumentFilter) -> list[str]:
        return [d.id for d in store.list_documents("ann", where=where)]

    assert ids(DocumentFilter(media_types=frozenset({"application/pdf"}))) == [ida]
    assert ids(DocumentFilter(title_contains="NOTES")) == [idb]
    assert ids(DocumentFilter(metadata={"year": 2024})) == [idb]
    assert ids(DocumentFilter(metadata={"team": "ops"})) == [ida, idb]
    assert ids(DocumentFilter(metadata={"final": True})) == [ida]
    assert ids(DocumentFilter(metadata={"final": 1})) == []  # a number is not a boolean
    assert ids(DocumentFilter(metadata={"team": "ops", "year": 2023})) == [ida]
    assert ids(DocumentFilter(doc_ids=frozenset({idb, "nope"}))) == [idb]
    assert ids(DocumentFilter(metadata={"missing": "x"})) == []


def test_get_chunks_keeps_the_order_asked_and_refuses_unknown_ids(store: Store) -> None:
    doc = make_doc(LONG, chunk_size=300)
    doc.add(store, "ann")
    wanted = [doc.chunks[2].id, doc.chunks[0].id, doc.chunks[2].id]

    assert [c.id for c in store.get_chunks("ann", wanted)] == wanted
    assert store.get_chunks("ann", []) == []
    with pytest.raises(NotFound, match="no chunk 'nope'"):
        store.get_chunks("ann", [doc.chunks[0].id, "nope"])
