"""Real SQLite stores in temporary folders, and documents cut by the real chunker."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from docuchat.corpus.chunking import chunk_document
from docuchat.corpus.parse import content_hash
from docuchat.corpus.types import Block, Chunk, ParsedDocument
from docuchat.store import AddResult, SQLiteStore


@dataclass(frozen=True)
class Doc:
    parsed: ParsedDocument
    chunks: list[Chunk]
    hash: str

    def add(self, store: SQLiteStore, owner: str, source: str | None = None) -> AddResult:
        return store.add_document(
            owner, self.parsed, self.chunks, content_hash=self.hash, source=source
        )


def make_doc(
    text: str,
    *,
    title: str = "A document",
    media_type: str = "text/plain",
    metadata: dict[str, Any] | None = None,
    chunk_size: int = 1000,
    overlap: int | None = None,
) -> Doc:
    """A one-page document; its paragraphs (blank-line separated) are its blocks."""
    blocks, start = [], 0
    for paragraph in text.split("\n\n"):
        blocks.append(Block(page=1, start=start, end=start + len(paragraph)))
        start += len(paragraph) + 2
    parsed = ParsedDocument(
        title=title,
        text=text,
        blocks=tuple(blocks),
        page_count=1,
        media_type=media_type,
        metadata=metadata or {},
    )
    digest = content_hash(f"{title}\n{text}".encode())
    chunks = chunk_document(
        parsed,
        doc_hash=digest,
        size=chunk_size,
        overlap=min(150, chunk_size // 4) if overlap is None else overlap,
    )
    return Doc(parsed, chunks, digest)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "docuchat.db"


@pytest.fixture
def store(db_path: Path) -> Iterator[SQLiteStore]:
    opened = SQLiteStore(db_path)
    yield opened
    opened.close()
