"""Hybrid search over real files ingested into a real store, with the hashing embedder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docuchat.corpus.ingest import embed_pending, ingest_paths
from docuchat.embeddings import HashingEmbedder
from docuchat.errors import ConfigError
from docuchat.search import HybridConfig, HybridSearcher
from docuchat.store import DocumentFilter, SQLiteStore

FILES = {
    "glaciers.md": "# Glaciers\n\nAlpine glaciers are retreating as summers warm.\n\n"
    "Meltwater feeds the rivers of the valleys below.",
    "volcanoes.txt": "Volcanoes erupt when magma rises through the crust.\n\n"
    "Ash clouds can ground aircraft for days.",
    "tides.html": "<html><head><title>Tides</title></head><body><p>Tides follow the moon."
    "</p><p>Spring tides are the strongest.</p></body></html>",
}


@pytest.fixture
def indexed(tmp_path: Path) -> Iterator[tuple[SQLiteStore, HashingEmbedder, dict[str, str]]]:
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    store = SQLiteStore(tmp_path / "search.db")
    embedder = HashingEmbedder(64)
    report = ingest_paths(store, "ann", [tmp_path])
    embed_pending(store, "ann", embedder)
    yield store, embedder, {Path(f.path).stem: f.doc_id for f in report.ingested}
    store.close()


def test_results_point_at_exact_passages_with_highlights_and_ranks(
    indexed: tuple[SQLiteStore, HashingEmbedder, dict[str, str]],
) -> None:
    store, embedder, ids = indexed
    [best, *_] = HybridSearcher(store, embedder).search("ann", "retreating glaciers", k=3)

    assert (best.doc_id, best.title, best.page) == (ids["glaciers"], "Glaciers", 1)
    assert (
        store.document_text("ann", best.doc_id, best.start, best.end)
        == store.get_chunk("ann", best.chunk_id).text
    )
    assert {best.snippet.text[s:e].lower() for s, e in best.snippet.highlights} >= {
        "glaciers",
        "retreating",
    }
    assert best.bm25_rank == 1 and best.vector_rank == 1
    assert best.score == pytest.approx(1.0)  # the best scaled score of both methods
    assert best.to_dict()["highlights"] == [list(span) for span in best.snippet.highlights]


def test_reciprocal_rank_fusion_on_request(
    indexed: tuple[SQLiteStore, HashingEmbedder, dict[str, str]],
) -> None:
    store, embedder, _ = indexed
    searcher = HybridSearcher(store, embedder, HybridConfig(fusion="rrf", rrf_k=10))
    results = searcher.search("ann", "glaciers moon magma", k=5)

    for result in results:
        ranks = [rank for rank in (result.bm25_rank, result.vector_rank) if rank is not None]
        assert result.score == pytest.approx(sum(1 / (10 + rank) for rank in ranks))
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)


def test_the_vector_side_can_find_what_bm25_misses(
    indexed: tuple[SQLiteStore, HashingEmbedder, dict[str, str]],
) -> None:
    store, embedder, ids = indexed
    vector = embedder.embed(["Tides follow the moon. Spring tides are the strongest."])[0]
    results = HybridSearcher(store, embedder).search("ann", "zebra", query_vector=vector)

    assert results[0].doc_id == ids["tides"]
    assert (results[0].bm25_rank, results[0].vector_rank) == (None, 1)
    assert results[0].snippet.highlights == ()


def test_single_methods_and_weights(
    indexed: tuple[SQLiteStore, HashingEmbedder, dict[str, str]],
) -> None:
    store, embedder, _ = indexed
    query = "magma ash aircraft"
    bm25 = HybridSearcher(store, embedder).search("ann", query, mode="bm25")
    dense = HybridSearcher(store, embedder).search("ann", query, mode="dense")
    no_vectors = HybridSearcher(store, embedder, HybridConfig(vector_weight=0.0))

    assert bm25 and all(r.vector_rank is None for r in bm25)
    assert dense and all(r.bm25_rank is None for r in dense)
    assert [r.chunk_id for r in no_vectors.search("ann", query)] == [r.chunk_id for r in bm25]
    assert [r.chunk_id for r in HybridSearcher(store).search("ann", query)] == [
        r.chunk_id for r in bm25
    ]


def test_filters_apply_to_both_methods_and_k_is_respected(
    indexed: tuple[SQLiteStore, HashingEmbedder, dict[str, str]],
) -> None:
    store, embedder, ids = indexed
    searcher = HybridSearcher(store, embedder)
    only_tides = DocumentFilter(doc_ids=frozenset({ids["tides"]}))

    assert {r.doc_id for r in searcher.search("ann", "glaciers moon", where=only_tides)} == {
        ids["tides"]
    }
    markdown = DocumentFilter(media_types=frozenset({"text/markdown"}))
    assert {r.doc_id for r in searcher.search("ann", "moon glaciers", where=markdown)} == {
        ids["glaciers"]
    }
    assert len(searcher.search("ann", "the", k=1)) == 1


def test_bad_modes_and_weights_are_config_errors(
    indexed: tuple[SQLiteStore, HashingEmbedder, dict[str, str]],
) -> None:
    store, _, _ = indexed
    with pytest.raises(ConfigError, match="needs an embedder"):
        HybridSearcher(store).search("ann", "moon", mode="dense")
    with pytest.raises(ConfigError, match="unknown search mode"):
        HybridSearcher(store).search("ann", "moon", mode="fuzzy")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="must not be negative"):
        HybridConfig(vector_weight=-1.0)
    with pytest.raises(ConfigError, match="at least one fusion weight"):
        HybridConfig(bm25_weight=0.0, vector_weight=0.0)
