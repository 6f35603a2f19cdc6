"""A real PostgreSQL with pgvector for the whole session, and empty databases on it.

One server (pgserver) starts on the first test that asks for it; each
database is a new schema on it, so tests never see each other's rows.
Registered for the whole suite by ``tests/conftest.py``.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterator
from urllib.parse import quote

import psycopg
import pytest

with warnings.catch_warnings():  # pgserver warns on import that XDG_RUNTIME_DIR is unset
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR")
    import pgserver

_schemas = itertools.count()


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A PostgreSQL 16 server with pgvector for the session; yields its URL."""
    server = pgserver.get_server(tmp_path_factory.mktemp("postgres"), cleanup_mode="stop")
    url: str = server.get_uri()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")  # once, in public, for all schemas
    yield url
    server.cleanup()


def new_database(server_url: str) -> str:
    """An empty database on the server: a new schema, as a URL whose search path starts there."""
    schema = f"test_{next(_schemas)}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    return f"{server_url}&options={quote(f'-c search_path={schema},public')}"


@pytest.fixture
def postgres_url(postgres_server: str) -> str:
    """An empty database on the session's server."""
    return new_database(postgres_server)
