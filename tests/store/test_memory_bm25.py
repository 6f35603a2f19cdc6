"""The in-memory BM25 index ranks exactly as FTS5's bm25() does, and never goes stale."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docuchat.store import DocumentFilter, Hit, SQLiteStore

from .conftest import make_doc

TEXTS = {
    "Tides": "Tides rise and fall twice a day. The moon pulls the oceans; the sun pulls too.",
    "Moon": "The moon orbits the earth. Its phases run from new moon to full moon and back.",
    "Running": "Runners run long distances. Running daily strengthens the heart and lungs.",
    "Dessert": "Zoë ordered crème brûlée at the café after a long run by the ocean.",
    "Oceans": "Oceans cover most of the planet. Ocean currents move heat toward the poles."
    "\n\nSea levels rise as glaciers melt and water warms. " * 6,
}
QUERIES = [
    "moon",
    "the moon and the tides",
    "running runs runner",  # three words, stemmed to the same term or not
    "creme brulee cafe",  # accents folded
    "ocean heat currents rise",
    "Moon",  # a title word
    "nothing matches this",
]


@pytest.fixture
def both(db_path: Path) -> Iterator[tuple[SQLiteStore, SQLiteStore]]:
    """A store ranking in memory and one ranking with FTS5 on the same file."""
    memory = SQLiteStore(db_path)
    fts5 = SQLiteStore(db_path, memory_bm25_max_chunks=0)
    for title, text in TEXTS.items():
        make_doc(text, title=title, chunk_size=200).add(memory, "ann")
    yield memory, fts5
    memory.close()
    fts5.close()


def _ranked(hits: list[Hit]) -> list[tuple[str, float]]:
    return [(hit.chunk_id, hit.score) for hit in hits]


@pytest.mark.parametrize("query", QUERIES)
def test_ranks_and_scores_equal_fts5_bm25(
    both: tuple[SQLiteStore, SQLiteStore], query: str
) -> None:
    memory, fts5 = both
    expected = fts5.search_bm25("ann", query, k=50)
    assert _ranked(memory.search_bm25("ann", query, k=50)) == _ranked(expected)
    assert bool(expected) == (query != "nothing matches this")


def test_filters_rank_as_fts5_does_among_the_allowed_documents(
    both: tuple[SQLiteStore, SQLiteStore],
) -> None:
    memory, fts5 = both
    docs = {d.title: d.id for d in memory.list_documents("ann")}
    where = DocumentFilter(doc_ids=frozenset({docs["Moon"], docs["Oceans"]}))
    hits = memory.search_bm25("ann", "moon ocean tides", k=50, where=where)
    assert {hit.doc_id for hit in hits} == {docs["Moon"], docs["Oceans"]}
    assert _ranked(hits) == _ranked(fts5.search_bm25("ann", "moon ocean tides", k=50, where=where))


def test_writes_are_seen_by_the_next_search(db_path: Path) -> None:
    store, other = SQLiteStore(db_path), SQLiteStore(db_path)
    first = make_doc("Basalt cools into columns.", title="Rocks").add(store, "ann")
    assert [h.doc_id for h in store.search_bm25("ann", "basalt")] == [first.document.id]

    # Written through another store on the same file: the cached index must notice.
    second = make_doc("Basalt floors the oceans.", title="Floor").add(other, "ann")
    assert {h.doc_id for h in store.search_bm25("ann", "basalt")} == {
        first.document.id,
        second.document.id,
    }
    other.remove_document("ann", first.document.id)
    assert [h.doc_id for h in store.search_bm25("ann", "basalt")] == [second.document.id]

    replaced = make_doc("Granite, not that other rock.", title="Floor").add(
        store, "ann", source="floor.txt"
    )
    make_doc("Granite again, edited.", title="Floor").add(other, "ann", source="floor.txt")
    assert [h.doc_id for h in store.search_bm25("ann", "edited")] == [replaced.document.id]
    store.close()
    other.close()


def test_another_owners_documents_do_not_change_an_owners_scores(db_path: Path) -> None:
    store = SQLiteStore(db_path)
    for title, text in TEXTS.items():
        make_doc(text, title=title).add(store, "ann")
    before = _ranked(store.search_bm25("ann", "moon tides ocean", k=50))
    for i in range(20):
        make_doc(f"Moon and ocean notes, number {i}.", title=f"Bob {i}").add(store, "bob")
    assert _ranked(store.search_bm25("ann", "moon tides ocean", k=50)) == before
    assert len(store.search_bm25("bob", "moon", k=50)) == 20
    store.close()


def test_a_word_fts5_reads_as_a_phrase_matches_as_a_phrase(
    both: tuple[SQLiteStore, SQLiteStore],
) -> None:
    memory, fts5 = both
    adjacent = make_doc("A tide pool holds crabs.", title="Shore").add(memory, "ann")
    make_doc("A pool at low tide.", title="Beach").add(memory, "ann")
    # U+19B0 is a letter to Python but not to FTS5's Unicode 6.1 tables, so FTS5
    # splits this one word into the phrase "tide pool".
    query = "tide\u19b0pool"
    hits = memory.search_bm25("ann", query)
    assert [h.doc_id for h in hits] == [adjacent.document.id]
    assert _ranked(hits) == _ranked(fts5.search_bm25("ann", query))
