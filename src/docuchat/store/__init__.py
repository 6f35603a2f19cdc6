"""Where documents, chunks and vectors live: one interface, SQLite by default, or PostgreSQL.

Open a store with :func:`open_store`; every method takes the owner.
"""

from __future__ import annotations

from pathlib import Path

from docuchat.store.base import (
    AddResult,
    AddStatus,
    ChunkRecord,
    DocumentFilter,
    DocumentRecord,
    Hit,
    MetadataValue,
    Store,
    TextToEmbed,
    Vector,
)
from docuchat.store.postgres_extra import is_postgres, postgres_extra
from docuchat.store.sqlite import SQLiteStore


def open_store(location: str | Path) -> Store:
    """Open (creating and migrating if needed) the store at a SQLite file path or at a
    ``postgresql://`` URL (which needs the ``postgres`` extra)."""
    if is_postgres(location):
        with postgres_extra("the PostgreSQL store needs"):
            from docuchat.store.postgres import PostgresStore
        return PostgresStore(str(location))
    return SQLiteStore(location)


__all__ = [
    "AddResult",
    "AddStatus",
    "ChunkRecord",
    "DocumentFilter",
    "DocumentRecord",
    "Hit",
    "MetadataValue",
    "SQLiteStore",
    "Store",
    "TextToEmbed",
    "Vector",
    "open_store",
]
