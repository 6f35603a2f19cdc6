"""Real stores: SQLite files in temporary folders and a real PostgreSQL with pgvector.

A test that takes ``store`` or ``backend`` runs once per backend, unless it
also takes ``db_path`` (it then looks inside a SQLite file and runs on SQLite
only). PostgreSQL databases come from ``tests/pg_fixtures.py``: one server for
the session, a schema of its own for each store.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from docuchat.corpus.chunking import chunk_document
from docuchat.corpus.parse import content_hash
from docuchat.corpus.types import Block, Chunk, ParsedDocument
from docuchat.store import AddResult, Store, open_store
from pg_fixtures import new_database

BACKENDS = ("sqlite", "postgres")


@dataclass(frozen=True)
class Doc:
    parsed: ParsedDocument
    chunks: list[Chunk]
    hash: str

    def add(self, store: Store, owner: str, source: str | None = None) -> AddResult:
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


@dataclass(frozen=True)
class Backend:
    """One empty database of one backend, and ways to look inside it."""

    name: str
    location: str  # a SQLite file path or a postgresql:// URL

    def open(self) -> Store:
        return open_store(self.location)

    def row_counts(self) -> tuple[int, int, int]:
        """How many documents, chunks and vectors are stored, for every owner together."""
        query = (
            "SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks),"
            " (SELECT count(*) FROM embeddings)"
        )
        if self.name == "sqlite":
            with closing(sqlite3.connect(self.location)) as db:
                row = db.execute(query).fetchone()
        else:
            with psycopg.connect(self.location) as conn:
                row = conn.execute(query).fetchone()
        assert row is not None
        return int(row[0]), int(row[1]), int(row[2])

    def check_index(self) -> None:
        """Fail if the full-text index disagrees with the chunks it indexes."""
        if self.name == "sqlite":
            with closing(sqlite3.connect(self.location)) as db:  # FTS5's own check; raises if not
                db.execute(
                    "INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 1)"
                )
            return
        with psycopg.connect(self.location) as conn:
            per_chunk = conn.execute(
                "SELECT c.key, c.owner, c.length, p.owner, p.length, p.total FROM chunks c"
                " FULL JOIN (SELECT chunk_key, min(owner) AS owner, min(length) AS length,"
                " sum(tf) AS total FROM postings GROUP BY chunk_key) p ON p.chunk_key = c.key"
                " WHERE c.key IS NULL OR (p.chunk_key IS NULL AND c.length > 0)"
                " OR (c.owner, c.length, c.length) <> (p.owner, p.length, p.total)"
            ).fetchall()
            per_owner = conn.execute(
                "SELECT * FROM (SELECT owner, count(*), sum(length) FROM chunks GROUP BY owner) c"
                " FULL JOIN (SELECT owner, chunks, length FROM owner_stats WHERE chunks > 0) s"
                " USING (owner) WHERE (c.count, c.sum) IS DISTINCT FROM (s.chunks, s.length)"
            ).fetchall()
        assert per_chunk == [], "postings disagree with their chunks"
        assert per_owner == [], "owner_stats disagree with the chunks"


def make_backend(name: str, folder: Path, request: pytest.FixtureRequest) -> Backend:
    """An empty database: a file in ``folder``, or a new schema on the session's server."""
    if name == "sqlite":
        return Backend(name, str(folder / "data" / "docuchat.db"))
    return Backend(name, new_database(request.getfixturevalue("postgres_server")))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames:
        sqlite_only = "db_path" in metafunc.fixturenames
        metafunc.parametrize("backend", ["sqlite"] if sqlite_only else BACKENDS, indirect=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    return make_backend(request.param, tmp_path, request)


@pytest.fixture
def postgres(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """An empty PostgreSQL database, for the tests of what only that backend has."""
    return make_backend("postgres", tmp_path, request)


@pytest.fixture
def store(backend: Backend) -> Iterator[Store]:
    opened = backend.open()
    yield opened
    opened.close()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Where the SQLite-only tests keep their file (the same one ``backend`` uses)."""
    return tmp_path / "data" / "docuchat.db"
