"""One SQLite file: WAL, migrations on open, writes serialised, reads on per-thread connections.

In WAL mode readers and the writer do not block each other, so each thread
reads through a connection of its own (opened on its first read) while writes
take turns on the one write connection. A long write transaction stalls no
read; each read transaction sees the last committed state as of its start.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from docuchat.errors import StoreError
from docuchat.store.migrations import apply_migrations
from docuchat.store.waiting import WouldWait, may_wait

BASE_PRAGMAS = ("journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON")
BUSY_TIMEOUT_S = 10.0


class SQLiteFile:
    """Opens (creating and migrating) ``path``. Safe to share between threads.

    ``pragmas`` apply to every connection; ``prepare_reader`` runs once on each
    new read connection (to create its temporary tables, say).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        pragmas: Sequence[str] = (),
        prepare_reader: Callable[[sqlite3.Connection], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.lock = threading.RLock()  # held by each write transaction
        self._pragmas = (*BASE_PRAGMAS, *pragmas)
        self._prepare_reader = prepare_reader
        self._local = threading.local()
        self._readers: dict[threading.Thread, sqlite3.Connection] = {}
        self._readers_lock = threading.Lock()
        self._closed = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = self._connect()
            self.applied_migrations = apply_migrations(self.db)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the database {self.path}: {exc}") from exc

    def close(self) -> None:
        with self.lock, self._readers_lock:
            self._closed = True
            for reader in self._readers.values():
                reader.close()
            self.db.close()

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction on this thread's connection: a consistent snapshot."""
        with sqlite_errors():
            db = self._reader()
            db.execute("BEGIN")
            try:
                yield db
            finally:
                db.execute("COMMIT")

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: all of it or, on any error, none of it."""
        with self._write_lock(), sqlite_errors():
            self._begin_immediate()
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    @contextmanager
    def _write_lock(self) -> Iterator[None]:
        if may_wait():
            with self.lock:
                yield
            return
        if not self.lock.acquire(blocking=False):
            raise WouldWait(f"another thread is writing to {self.path}")
        try:
            yield
        finally:
            self.lock.release()

    def _begin_immediate(self) -> None:
        if may_wait():
            self.db.execute("BEGIN IMMEDIATE")
            return
        self.db.execute("PRAGMA busy_timeout = 0")
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode == sqlite3.SQLITE_BUSY:
                raise WouldWait(f"another connection is writing to {self.path}") from exc
            raise
        finally:
            self.db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")

    def _reader(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is not None:
            return db
        with self._readers_lock:
            if self._closed:
                raise StoreError(f"the database {self.path} is closed")
            for thread in [t for t in self._readers if not t.is_alive()]:
                self._readers.pop(thread).close()  # ended threads' connections
            db = self._connect()
            if self._prepare_reader:
                self._prepare_reader(db)
            self._readers[threading.current_thread()] = db
        self._local.db = db
        return db

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(
            self.path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_S
        )
        for pragma in self._pragmas:
            db.execute(f"PRAGMA {pragma}")
        return db


@contextmanager
def sqlite_errors() -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as exc:
        raise StoreError(f"database error: {exc}") from exc
