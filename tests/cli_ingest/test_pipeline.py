"""The ingestion pipeline: files in, skipped files explained, embeddings resumable."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from docuchat.corpus.ingest import embed_pending, find_files, ingest_paths
from docuchat.embeddings import HashingEmbedder, Vectors
from docuchat.errors import ModelConnectionError
from docuchat.store import SQLiteStore

from .conftest import BAD_REASONS


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    return SQLiteStore(tmp_path / "pipeline.db")


class FailingAfter:
    """A hashing embedder behind a connection that drops after ``calls`` requests."""

    def __init__(self, calls: int) -> None:
        self._inner = HashingEmbedder(32)
        self._calls_left = calls
        self.name, self.space, self.dim = self._inner.name, self._inner.space, self._inner.dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        if self._calls_left == 0:
            raise ModelConnectionError("connection reset")
        self._calls_left -= 1
        return self._inner.embed(texts)


def test_find_files_walks_folders_for_every_file_but_hidden_ones_and_keeps_named_files(
    mixed_folder: Path,
) -> None:
    named = mixed_folder / "clip.gif"
    found = find_files([mixed_folder, named, mixed_folder / "notes.md"])

    relative = [str(p.relative_to(mixed_folder)) for p in found]
    assert relative == [
        "broken.pdf",
        "clip.gif",
        "crazyones.pdf",
        "empty.txt",
        "guide/tides.html",
        "guide/volcanoes.txt",
        "locked.pdf",
        "notes.md",
    ]


def test_bad_files_are_skipped_with_their_reason_and_write_nothing(
    store: SQLiteStore, mixed_folder: Path
) -> None:
    calls: list[tuple[int, int, str]] = []
    report = ingest_paths(
        store,
        "ann",
        [mixed_folder, mixed_folder / "clip.gif", mixed_folder / "missing.txt"],
        progress=lambda done, total, name: calls.append((done, total, name)),
    )

    reasons = {Path(s.path).name: s.reason for s in report.skipped}
    assert reasons == {**BAD_REASONS, "missing.txt": "ingest failed"}
    assert "No such file" in next(s.message for s in report.skipped if "missing" in s.path)
    assert len(report.ingested) == 4
    assert report.pages == 4 and report.chunks == sum(f.chunks for f in report.ingested)
    assert sorted(d.title for d in store.list_documents("ann")) == sorted(
        f.title for f in report.ingested
    )
    assert calls[-1] == (9, 9, "missing.txt")
    assert [done for done, _, _ in calls] == list(range(1, 10))


def test_text_is_searchable_before_any_embedding(store: SQLiteStore, good_folder: Path) -> None:
    report = ingest_paths(store, "ann", [good_folder])
    notes = next(f for f in report.ingested if f.path.endswith("notes.md"))

    assert store.search_bm25("ann", "glaciers retreating")[0].doc_id == notes.doc_id
    assert store.count_texts_to_embed("ann", "hash-32") == report.chunks


def test_reingesting_is_unchanged_and_an_edited_file_is_replaced(
    store: SQLiteStore, good_folder: Path
) -> None:
    first = ingest_paths(store, "ann", [good_folder])
    (good_folder / "notes.md").write_text("# Field notes\n\nThe glaciers are gone.")
    second = ingest_paths(store, "ann", [good_folder])

    assert first.statuses() == {"added": 4}
    assert second.statuses() == {"unchanged": 3, "replaced": 1}
    [replaced] = [f for f in second.ingested if f.status == "replaced"]
    assert replaced.doc_id == next(f.doc_id for f in first.ingested if f.path == replaced.path)
    assert len(store.list_documents("ann")) == 4
    assert store.search_bm25("ann", "retreating") == []


def test_embedding_resumes_after_a_failure_and_never_repeats_work(
    store: SQLiteStore, good_folder: Path
) -> None:
    report = ingest_paths(store, "ann", [good_folder])
    total = store.count_texts_to_embed("ann", "hash-32")

    with pytest.raises(ModelConnectionError):
        embed_pending(store, "ann", FailingAfter(calls=1), batch_size=2)
    assert store.count_texts_to_embed("ann", "hash-32") == total - 2

    progress: list[tuple[int, int]] = []
    done = embed_pending(
        store, "ann", FailingAfter(calls=99), batch_size=2,
        progress=lambda d, t, _: progress.append((d, t)),
    )  # fmt: skip
    assert done == total - 2 and progress[-1] == (total - 2, total - 2)
    assert embed_pending(store, "ann", FailingAfter(calls=0)) == 0  # nothing left to embed
    assert (
        len(store.search_vectors("ann", "hash-32", HashingEmbedder(32).embed(["moon"])[0], k=50))
        == report.chunks
    )
