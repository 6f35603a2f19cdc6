"""A search hit names its document's file (the name its owner gave it, no folders), read
with the chunk itself; a language model is shown the hit without it, as recorded."""

from __future__ import annotations

from docuchat.research.tools import ResearchSession
from docuchat.search.hybrid import HybridSearcher


def test_a_hit_names_its_file_without_its_folders(searcher: HybridSearcher) -> None:
    session = ResearchSession(searcher, "alice")
    hits = session.search("market value Highlands estate").hits
    assert hits[0].title == "Highlands Valuation Report" and hits[0].file == "valuation.md"
    assert "file" not in hits[0].as_dict()  # what a language model is shown, as recorded
