"""A real SQLite store holding a few small documents, searched by BM25 alone, and a research
agent with the offline model over it."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from docuchat.corpus.ingest import ingest_paths
from docuchat.models.base import Message
from docuchat.research import Answer, ResearchAgent
from docuchat.research.offline import OfflineModel
from docuchat.search.hybrid import HybridSearcher
from docuchat.store import Store, open_store

Ask = Callable[..., Answer]

OWNER = "ada"
DOCS = {
    "bridge.md": (
        "# The Larkspur Bridge\n\n"
        "The Larkspur Bridge was designed by the engineer Mara Quinn. "
        "It opened to traffic in 1998 after four years of construction. "
        "The bridge carries two lanes of traffic across the Tamsin River.\n\n"
        "In 2015 the deck was strengthened so that buses could cross it."
    ),
    "bakery.md": (
        "# Holloway Bakery\n\n"
        "Holloway Bakery was founded in 1921 by Edith Holloway in the village of Brackley. "
        "The bakery is known for its rye bread, which is baked in a wood-fired oven. "
        "The most popular product of the bakery is the cardamom bun.\n\n"
        "The bakery employs twelve people and opens at six in the morning."
    ),
    "travel.md": (
        "# Travel\n\n"
        "Book hotels close to where you work, within these limits per night:\n\n"
        "| Location | Limit per night |\n|---|---|\n| London | £160 |\n| Lisbon | €130 |\n\n"
        "Stays above the limit need approval."
    ),
    "garden.md": (
        "# The Walled Garden\n\n"
        "The walled garden covers two acres and holds more than three hundred varieties "
        "of apple. The head gardener, Tobias Reyes, planted the orchard in 1984. "
        "Visitors may not pick the apples."
    ),
}


@pytest.fixture
def documents() -> dict[str, str | bytes]:
    """The documents in the store, by file name (a test module may override this)."""
    return DOCS


@pytest.fixture
def store(tmp_path: Path, documents: dict[str, str | bytes]) -> Iterator[Store]:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, content in documents.items():
        if isinstance(content, bytes):
            (folder / name).write_bytes(content)
        else:
            (folder / name).write_text(content, encoding="utf-8")
    db = open_store(tmp_path / "docuchat.db")
    report = ingest_paths(db, OWNER, [folder])
    assert len(report.ingested) == len(documents)
    yield db
    db.close()


@pytest.fixture
def searcher(store: Store) -> HybridSearcher:
    return HybridSearcher(store)


@pytest.fixture
def document_text(store: Store) -> Callable[[str], str]:
    return lambda doc_id: store.document_text(OWNER, doc_id)


@pytest.fixture
def ask(searcher: HybridSearcher) -> Ask:
    """``ask(question, history=..., model=..., **agent_options)``: the research agent's answer."""

    def run(
        question: str,
        *,
        history: Sequence[Message] = (),
        model: OfflineModel | None = None,
        **options: Any,
    ) -> Answer:
        agent = ResearchAgent(searcher, model or OfflineModel(), OWNER, **options)
        return agent.ask_sync(question, history=history)

    return run
