"""Reads run on per-thread connections: an open write transaction stalls no reader."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from docuchat.errors import StoreError
from docuchat.store.sqlite_file import SQLiteFile

WAIT_S = 5.0


@pytest.fixture
def file(tmp_path: Path) -> SQLiteFile:
    opened = SQLiteFile(tmp_path / "docuchat.db")
    with opened.write() as db:
        db.execute("INSERT INTO users (id, name, created_at) VALUES ('ann', 'ann', 'then')")
    return opened


def _users(file: SQLiteFile) -> list[str]:
    with file.read() as db:
        return [name for (name,) in db.execute("SELECT name FROM users ORDER BY name")]


def test_a_read_does_not_wait_for_an_open_write_and_sees_the_last_commit(
    file: SQLiteFile,
) -> None:
    writing, read_done = threading.Event(), threading.Event()
    outcome: list[str] = []

    def write_slowly() -> None:
        with file.write() as db:
            db.execute("INSERT INTO users (id, name, created_at) VALUES ('bob', 'bob', 'now')")
            writing.set()
            # The transaction stays open until the reader is done (or gives up).
            outcome.append("read while writing" if read_done.wait(WAIT_S) else "read waited")

    writer = threading.Thread(target=write_slowly)
    writer.start()
    assert writing.wait(WAIT_S)
    assert _users(file) == ["ann"]  # the snapshot before the uncommitted insert
    read_done.set()
    writer.join()
    assert outcome == ["read while writing"]  # not "read waited" for the commit
    assert _users(file) == ["ann", "bob"]
    file.close()


def test_a_read_transaction_keeps_its_snapshot_across_a_commit(file: SQLiteFile) -> None:
    with file.read() as db:
        assert db.execute("SELECT COUNT(*) FROM users").fetchone() == (1,)
        committer = threading.Thread(target=_add_user, args=(file, "cem"))
        committer.start()
        committer.join(WAIT_S)
        assert not committer.is_alive(), "the write waited for the read"
        assert db.execute("SELECT COUNT(*) FROM users").fetchone() == (1,)
    assert _users(file) == ["ann", "cem"]
    file.close()


def test_each_thread_reads_through_its_own_connection(file: SQLiteFile) -> None:
    connections = []

    def read() -> None:
        with file.read() as db:
            connections.append(db)

    for _ in range(2):
        read()
    thread = threading.Thread(target=read)
    thread.start()
    thread.join()
    assert connections[0] is connections[1]
    assert connections[2] is not connections[0]
    assert connections[0] is not file.db  # never the write connection
    file.close()


def test_reading_after_close_is_a_store_error(file: SQLiteFile) -> None:
    file.close()
    reader = threading.Thread(target=lambda: errors.append(_try_read(file)))
    errors: list[str] = []
    reader.start()
    reader.join()
    assert errors == ["closed"]
    with pytest.raises(StoreError):
        _users(file)


def _try_read(file: SQLiteFile) -> str:
    try:
        _users(file)
    except StoreError as exc:
        return "closed" if "is closed" in str(exc) else str(exc)
    return "read"


def _add_user(file: SQLiteFile, name: str) -> None:
    with file.write() as db:
        db.execute("INSERT INTO users (id, name, created_at) VALUES (?, ?, 'now')", (name, name))
