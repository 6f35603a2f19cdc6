"""Where documents, chunks and vectors live: one interface, SQLite by default.

Open a store with :func:`open_store`; every method takes the owner.
"""

from __future__ import annotations

from pathlib import Path

from docuchat.errors import ConfigError
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
from docuchat.store.sqlite import SQLiteStore


def open_store(location: str | Path) -> Store:
    """Open (creating and migrating if needed) the store at a SQLite file path."""
    if str(location).startswith(("postgres://", "postgresql://")):
        raise ConfigError("the PostgreSQL store is not available yet; use a SQLite file path")
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
