"""A real SQLite store with two owners' documents, searched by BM25."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docuchat.corpus.ingest import ingest_paths
from docuchat.search.hybrid import HybridSearcher
from docuchat.store import Store, open_store

ALICE_DOCS = {
    "valuation.md": (
        "# Highlands Valuation Report\n\n"
        "The market value of the Highlands estate was assessed at 2,300,000 pounds in "
        "February 2024. The valuer inspected the main house and the two cottages.\n\n"
        "The roof of the main house was replaced in 2019 and is in good condition."
    ),
    "lease.md": (
        "# Cottage Lease\n\n"
        "The lease of the east cottage runs for five years from 1 March 2022. "
        "The annual rent is 14,400 pounds, payable monthly in advance. The cottage is part "
        "of the Highlands estate."
    ),
    "survey.md": (
        "# Building Survey\n\nThe surveyor found damp in the cellar of the estate's main house "
        "and recommended new drainage before winter."
    ),
    "insurance.md": (
        "# Insurance Schedule\n\nThe estate is insured for 2,900,000 pounds against fire and "
        "flood, with an excess of 1,000 pounds per claim."
    ),
}
BOB_DOCS = {
    "secret.md": "# Bob's Secret Plan\n\nThe launch date of Project Falcon is 9 September 2025."
}


def _write(folder: Path, docs: dict[str, str]) -> Path:
    folder.mkdir()
    for name, text in docs.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    db = open_store(tmp_path / "docuchat.db")
    report = ingest_paths(db, "alice", [_write(tmp_path / "alice", ALICE_DOCS)])
    assert len(report.ingested) == 4
    ingest_paths(db, "bob", [_write(tmp_path / "bob", BOB_DOCS)])
    yield db
    db.close()


@pytest.fixture
def searcher(store: Store) -> HybridSearcher:
    return HybridSearcher(store)
