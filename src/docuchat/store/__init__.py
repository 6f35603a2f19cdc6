"""Where documents, chunks and vectors live: one interface, SQLite by default, or PostgreSQL.

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
    """Open (creating and migrating if needed) the store at a SQLite file path or at a
    ``postgresql://`` URL (which needs the ``postgres`` extra)."""
    if str(location).startswith(("postgres://", "postgresql://")):
        try:
            from docuchat.store.postgres import PostgresStore
        except ImportError as exc:
            raise ConfigError(
                "the PostgreSQL store needs the postgres extra: pip install 'docuchat[postgres]'"
            ) from exc
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
