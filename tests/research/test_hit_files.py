"""A search hit names its document's file (the name its owner gave it, no folders), looked up
once per run; a document removed between the search and the lookup leaves its hit standing."""

from __future__ import annotations

import pytest

from docuchat.errors import NotFound
from docuchat.research.tools import ResearchSession
from docuchat.search.hybrid import HybridSearcher


def test_a_hit_names_its_file_without_its_folders(searcher: HybridSearcher) -> None:
    session = ResearchSession(searcher, "alice")
    hits = session.search("market value Highlands estate").hits
    assert hits[0].title == "Highlands Valuation Report" and hits[0].file == "valuation.md"
    assert "file" not in hits[0].as_dict()  # what a language model is shown, as recorded


def test_a_document_removed_after_the_search_keeps_its_hit(
    searcher: HybridSearcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    def removed(owner: str, doc_id: str) -> None:
        raise NotFound(f"no document {doc_id}")

    # The race: another request removes the document between the search and the lookup.
    monkeypatch.setattr(searcher.store, "get_document", removed)
    hits = ResearchSession(searcher, "alice").search("market value Highlands estate").hits
    assert hits and all(h.file == "" for h in hits)
