"""One SQLite file, one connection shared by threads: WAL, migrations on open, typed errors."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from docuchat.errors import StoreError
from docuchat.store.migrations import apply_migrations

BASE_PRAGMAS = ("journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON")


class SQLiteFile:
    """Opens (creating and migrating) ``path``; calls are serialised by one re-entrant lock."""

    def __init__(self, path: str | Path, *, pragmas: Sequence[str] = ()) -> None:
        self.path = Path(path)
        self.lock = threading.RLock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=10.0
            )
            for pragma in (*BASE_PRAGMAS, *pragmas):
                self.db.execute(f"PRAGMA {pragma}")
            self.applied_migrations = apply_migrations(self.db)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the database {self.path}: {exc}") from exc

    def close(self) -> None:
        with self.lock:
            self.db.close()

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction (a consistent snapshot)."""
        with self.lock, sqlite_errors():
            self.db.execute("BEGIN")
            try:
                yield self.db
            finally:
                self.db.execute("COMMIT")

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: all of it or, on any error, none of it."""
        with self.lock, sqlite_errors():
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")


@contextmanager
def sqlite_errors() -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as exc:
        raise StoreError(f"database error: {exc}") from exc
