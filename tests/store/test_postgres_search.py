"""End to end on PostgreSQL: real files ingested, embedded and found by hybrid search, per owner."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docuchat.corpus.ingest import embed_pending, ingest_paths
from docuchat.embeddings import HashingEmbedder
from docuchat.search import HybridSearcher
from docuchat.store import DocumentFilter, Store

from .conftest import Backend

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "documents"


@pytest.fixture
def searcher(postgres: Backend) -> Iterator[HybridSearcher]:
    """Ann holds the employee handbook (a PDF); Bob the IT guidelines (HTML)."""
    store = postgres.open()
    embedder = HashingEmbedder(64)
    for owner, name in [("ann", "employee-handbook.pdf"), ("bob", "it-security.html")]:
        report = ingest_paths(store, owner, [SAMPLES / name])
        assert [file.status for file in report.ingested] == ["added"]
        embed_pending(store, owner, embedder)
    yield HybridSearcher(store, embedder)
    store.close()


def test_hybrid_search_finds_the_passage_with_highlights(searcher: HybridSearcher) -> None:
    store: Store = searcher.store
    [best, *_] = searcher.search("ann", "How many days of annual leave do employees get?", k=3)

    assert best.title == "Larkspur Analytics Employee Handbook"
    assert best.bm25_rank == 1 and best.vector_rank is not None
    assert "27 days of paid annual leave" in store.get_chunk("ann", best.chunk_id).text
    assert store.document_text("ann", best.doc_id, best.start, best.end) == (
        store.get_chunk("ann", best.chunk_id).text
    )
    marked = {best.snippet.text[s:e].lower() for s, e in best.snippet.highlights}
    assert {"annual", "leave", "days", "employees"} <= marked


def test_each_owner_searches_only_their_own_documents(searcher: HybridSearcher) -> None:
    for mode in ("hybrid", "bm25", "dense"):
        ann = searcher.search("ann", "password manager and annual leave", k=20, mode=mode)
        bob = searcher.search("bob", "password manager and annual leave", k=20, mode=mode)
        assert {r.title for r in ann} == {"Larkspur Analytics Employee Handbook"}
        assert {r.title for r in bob} == {"IT and Security Guidelines"}
    assert searcher.search("carol", "annual leave") == []
    [handbook] = searcher.store.list_documents("ann")
    only_other = DocumentFilter(doc_ids=frozenset({"not-" + handbook.id}))
    assert searcher.search("ann", "annual leave", where=only_other) == []
