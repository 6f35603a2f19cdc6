"""Two owners' documents in a real SQLite file, and ``docuchat mcp`` serving one of them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp import StdioServerParameters

import docuchat
from docuchat.corpus.ingest import ingest_paths
from docuchat.store import open_store

SRC = Path(docuchat.__file__).parents[1]
ALICE_DOCS = {
    "valuation.md": "# Highlands Valuation Report\n\nThe market value of the Highlands estate "
    "was assessed at 2,300,000 pounds in February 2024.",
    "lease.md": "# Cottage Lease\n\nThe annual rent of the east cottage is 14,400 pounds, "
    "payable monthly in advance.",
}
BOB_DOCS = {"falcon.md": "# Project Falcon\n\nThe launch date of Project Falcon is 9 September."}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "docuchat.db"
    store = open_store(path)
    for owner, docs in (("alice", ALICE_DOCS), ("bob", BOB_DOCS)):
        folder = tmp_path / owner
        folder.mkdir()
        for name, text in docs.items():
            (folder / name).write_text(text, encoding="utf-8")
        assert len(ingest_paths(store, owner, [folder]).ingested) == len(docs)
    store.close()
    return path


def docuchat_mcp(db: Path, owner: str, *options: str) -> StdioServerParameters:
    """``docuchat mcp`` as an MCP client starts it (the sources under test on its path)."""
    return StdioServerParameters(
        command=sys.executable,
        args=[
            "-c",
            "from docuchat.cli.main import main; main()",
            "mcp",
            "--db",
            str(db),
            "--owner",
            owner,
            "--embedder",
            "none",
            *options,
        ],
        env={"PYTHONPATH": str(SRC), "DOCUCHAT_HOME": str(db.parent)},
    )
