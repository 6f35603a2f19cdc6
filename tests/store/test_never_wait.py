"""``never_wait``: a write that would wait for another writer fails at once and writes nothing."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from docuchat.store.accounts import SQLiteAccounts
from docuchat.store.sqlite_file import BUSY_TIMEOUT_S
from docuchat.store.waiting import WouldWait, never_wait


@pytest.fixture
def accounts(tmp_path: Path) -> Iterator[SQLiteAccounts]:
    opened = SQLiteAccounts(tmp_path / "accounts.db")
    yield opened
    opened.close()


@contextmanager
def write_held_by_a_thread(accounts: SQLiteAccounts) -> Iterator[None]:
    """Another thread inside a write transaction of the same ``SQLiteFile``."""
    entered, leave = threading.Event(), threading.Event()

    def hold() -> None:
        with accounts._file.write():
            entered.set()
            leave.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    assert entered.wait(5)
    try:
        yield
    finally:
        leave.set()
        thread.join(5)


@contextmanager
def write_held_by_another_connection(path: Path) -> Iterator[None]:
    """Another connection (another process, an upload's store) holding the write lock."""
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        other.execute("COMMIT")
        other.close()


def test_a_write_behind_another_thread_fails_at_once_and_writes_nothing(
    accounts: SQLiteAccounts,
) -> None:
    user, _ = accounts.add_user("ann")
    with write_held_by_a_thread(accounts):
        started = time.monotonic()
        with never_wait(), pytest.raises(WouldWait):
            accounts.create_conversation(user.id, "never stored")
        assert time.monotonic() - started < 0.5
    assert accounts.list_conversations(user.id) == []


def test_a_write_behind_another_connection_fails_at_once_and_the_timeout_comes_back(
    accounts: SQLiteAccounts,
) -> None:
    user, _ = accounts.add_user("ann")
    with write_held_by_another_connection(accounts.path):
        started = time.monotonic()
        with never_wait(), pytest.raises(WouldWait):
            accounts.create_conversation(user.id, "never stored")
        assert time.monotonic() - started < 0.5
    assert accounts.list_conversations(user.id) == []
    busy_ms = accounts._file.db.execute("PRAGMA busy_timeout").fetchone()[0]
    assert busy_ms == int(BUSY_TIMEOUT_S * 1000)


def test_a_free_database_is_written_in_place_and_reads_never_wait(
    accounts: SQLiteAccounts,
) -> None:
    user, _ = accounts.add_user("ann")
    with never_wait():
        conversation = accounts.create_conversation(user.id, "stored")
    with write_held_by_another_connection(accounts.path), never_wait():
        assert accounts.get_conversation(user.id, conversation.id).title == "stored"


def test_without_never_wait_a_write_waits_for_the_other_writer(
    accounts: SQLiteAccounts,
) -> None:
    user, _ = accounts.add_user("ann")
    with write_held_by_a_thread(accounts):
        waiter = threading.Thread(target=accounts.create_conversation, args=(user.id, "later"))
        waiter.start()
        waiter.join(0.2)
        assert waiter.is_alive()  # still waiting for the lock
    waiter.join(5)
    assert [c.title for c in accounts.list_conversations(user.id)] == ["later"]
