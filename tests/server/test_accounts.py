"""The accounts store on both backends: keys and conversations, by owner.

Each test runs on a real SQLite file and on a real PostgreSQL database (a
schema of the session's server).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from docuchat.errors import AuthError, NotFound, StoreError
from docuchat.store import open_store
from docuchat.store.accounts import Accounts, Turn, TurnStep, open_accounts
from docuchat.store.postgres import PostgresStore
from docuchat.store.postgres_accounts import PostgresAccounts
from docuchat.store.postgres_schema import MIGRATIONS
from docuchat.store.waiting import WouldWait, never_wait


@dataclass(frozen=True)
class Database:
    """An empty database of one backend, and a way to look inside it."""

    backend: str
    location: str  # a SQLite file path or a postgresql:// URL

    def rows(self, query: str) -> list[tuple[Any, ...]]:
        if self.backend == "sqlite":
            with closing(sqlite3.connect(self.location)) as db:
                return db.execute(query).fetchall()
        with psycopg.connect(self.location) as conn:
            return conn.execute(query).fetchall()

    def tables(self) -> set[str]:
        query = (
            "SELECT name FROM sqlite_master WHERE type = 'table'"
            if self.backend == "sqlite"
            else "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
        )
        return {name for (name,) in self.rows(query)}


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Database:
    if request.param == "sqlite":
        return Database("sqlite", str(tmp_path / "docuchat.db"))
    return Database("postgres", request.getfixturevalue("postgres_url"))


@pytest.fixture
def accounts(database: Database) -> Iterator[Accounts]:
    accounts = open_accounts(database.location)
    yield accounts
    accounts.close()


def test_a_new_key_authenticates_its_user_and_only_its_hash_is_stored(
    accounts: Accounts, database: Database
) -> None:
    user, key = accounts.add_user("alice")
    assert accounts.authenticate(key) == user
    secret = key.split("_", 2)[2]
    rows = database.rows("SELECT key_id, secret_sha256 FROM api_keys")
    assert rows == [(key.split("_")[1], hashlib.sha256(secret.encode()).hexdigest())]
    everything = database.rows("SELECT * FROM api_keys") + database.rows("SELECT * FROM users")
    assert secret not in repr(everything)


def test_wrong_malformed_and_foreign_keys_are_refused(accounts: Accounts) -> None:
    _, key = accounts.add_user("alice")
    tampered = key[:-1] + ("A" if key[-1] != "A" else "B")
    for bad in (tampered, "dc_000000000000_" + key[-43:], "Bearer " + key, "", "dc_x_y"):
        with pytest.raises(AuthError):
            accounts.authenticate(bad)


def test_every_key_of_a_user_works(accounts: Accounts) -> None:
    user, first = accounts.add_user("alice")
    second = accounts.new_key("alice")
    assert first != second
    assert accounts.authenticate(first) == accounts.authenticate(second) == user
    with pytest.raises(NotFound):
        accounts.new_key("nobody")


def test_user_names_are_unique_and_checked(accounts: Accounts) -> None:
    alice, _ = accounts.add_user("alice")
    with pytest.raises(StoreError, match="already exists"):
        accounts.add_user("alice")
    for bad in ("", "-dash", "has space", "x" * 65, "semi;colon"):
        with pytest.raises(StoreError, match="invalid user name"):
            accounts.add_user(bad)
    bob, _ = accounts.add_user("bob")
    assert accounts.list_users() == [alice, bob]


def test_accounts_share_the_document_database(database: Database) -> None:
    store = open_store(database.location)
    accounts = open_accounts(database.location)
    try:
        assert {"documents", "users", "api_keys", "conversations", "turns", "upload_jobs"} <= (
            database.tables()
        )
    finally:
        accounts.close()
        store.close()


def test_a_turn_keeps_its_steps_in_order(accounts: Accounts) -> None:
    searched = TurnStep(
        step_id="c1",
        tool_name="search_docs",
        tool_input={"query": "rent «Zürich»"},
        status="complete",
        action="searching",
        message="Found 2 passages in 1 document: Lease",
        summary="Found 2 passages in 1 document: Lease",
        detail='{"hits": []}',
        duration_ms=12.5,
        timestamp=1_700_000_000.25,
        note="I will look for the rent first.",
    )
    failed = TurnStep(
        step_id="c2",
        tool_name="open_citation",
        tool_input={"docId": "d", "chunkId": "x"},
        status="error",
        action="reading",
        message="open_citation failed: no passage 'x'",
        summary="Error: no passage 'x'",
        detail="Error: no passage 'x'",
        duration_ms=0.4,
        timestamp=1_700_000_001.0,
    )
    conversation = accounts.create_conversation("alice", "Lease")
    accounts.add_turn(
        "alice", conversation.id, Turn("Q?", "A", (), "answered", steps=(searched, failed))
    )
    accounts.add_turn("alice", conversation.id, Turn("Q2?", "A2", (), "answered"))

    first, second = accounts.get_conversation("alice", conversation.id).turns
    assert first.steps == (searched, failed)
    assert second.steps == ()


def test_turns_saved_before_mode_reasons_were_kept_read_back_without_one(
    database: Database,
) -> None:
    accounts = open_accounts(database.location)
    conversation = accounts.create_conversation("alice", "Lease")
    accounts.add_turn("alice", conversation.id, Turn("Q?", "A", (), "answered", mode_reason="w"))
    accounts.close()
    # The database as the migration found it: no column, the migration not yet applied.
    last = "m014_turn_mode_reason" if database.backend == "sqlite" else "m013_turn_mode_reason"
    statements = (
        "ALTER TABLE turns DROP COLUMN mode_reason",
        f"DELETE FROM migrations WHERE name = '{last}'",
    )
    if database.backend == "sqlite":
        with closing(sqlite3.connect(database.location)) as db, db:
            for statement in statements:
                db.execute(statement)
    else:
        with psycopg.connect(database.location) as conn:
            for statement in statements:
                conn.execute(statement)

    reopened = open_accounts(database.location)
    try:
        [turn] = reopened.get_conversation("alice", conversation.id).turns
        assert (turn.answer, turn.mode_reason) == ("A", "")
    finally:
        reopened.close()


def test_conversations_keep_their_turns_and_belong_to_one_owner(accounts: Accounts) -> None:
    conversation = accounts.create_conversation("alice", "Highlands")
    citation = {"n": 1, "title": "Valuation", "span": [0, 10], "verified": True}
    accounts.add_turn("alice", conversation.id, Turn("Q1?", "A1 [1]", (citation,), "answered"))
    accounts.add_turn("alice", conversation.id, Turn("Q2?", "", (), "cancelled"))

    stored = accounts.get_conversation("alice", conversation.id)
    assert (stored.id, stored.title, stored.created_at) == (
        conversation.id,
        "Highlands",
        conversation.created_at,
    )
    assert [(t.question, t.answer, t.outcome) for t in stored.turns] == [
        ("Q1?", "A1 [1]", "answered"),
        ("Q2?", "", "cancelled"),
    ]
    assert stored.turns[0].citations == (citation,)
    assert stored.updated_at == stored.turns[-1].created_at > conversation.updated_at
    [summary] = accounts.list_conversations("alice")
    assert (summary.id, summary.turn_count, summary.updated_at) == (
        conversation.id,
        2,
        stored.updated_at,
    )

    assert accounts.list_conversations("bob") == []
    for action in (
        lambda: accounts.get_conversation("bob", conversation.id),
        lambda: accounts.add_turn("bob", conversation.id, Turn("x", "y", (), "answered")),
        lambda: accounts.delete_conversation("bob", conversation.id),
    ):
        with pytest.raises(NotFound):
            action()
    assert len(accounts.get_conversation("alice", conversation.id).turns) == 2

    accounts.delete_conversation("alice", conversation.id)
    with pytest.raises(NotFound):
        accounts.get_conversation("alice", conversation.id)
    with pytest.raises(NotFound):
        accounts.delete_conversation("alice", conversation.id)


def test_conversations_are_listed_most_recent_first(accounts: Accounts) -> None:
    first = accounts.create_conversation("alice", "first")
    second = accounts.create_conversation("alice", "second")
    assert [c.id for c in accounts.list_conversations("alice")] == [second.id, first.id]
    accounts.add_turn("alice", first.id, Turn("Q?", "A", (), "answered"))
    assert [c.id for c in accounts.list_conversations("alice")] == [first.id, second.id]


# -- PostgreSQL only ---------------------------------------------------------------------


def test_no_postgres_call_runs_under_never_wait(postgres_url: str) -> None:
    """On an event loop every call moves to a thread, before it touches the network."""
    accounts = open_accounts(postgres_url)
    try:
        user, key = accounts.add_user("alice")
        conversation = accounts.create_conversation("alice", "Q")
        calls = [
            lambda: accounts.add_user("bob"),
            lambda: accounts.new_key("alice"),
            accounts.list_users,
            lambda: accounts.authenticate(key),
            lambda: accounts.create_conversation("alice", "another"),
            lambda: accounts.list_conversations("alice"),
            lambda: accounts.get_conversation("alice", conversation.id),
            lambda: accounts.add_turn("alice", conversation.id, Turn("Q", "A", (), "answered")),
            lambda: accounts.delete_conversation("alice", conversation.id),
        ]
        with never_wait():
            for call in calls:
                with pytest.raises(WouldWait):
                    call()
        assert accounts.list_users() == [user]
        assert [c.id for c in accounts.list_conversations("alice")] == [conversation.id]
        assert accounts.get_conversation("alice", conversation.id).turns == ()
    finally:
        accounts.close()


def test_accounts_and_store_share_one_migrations_table(postgres_url: str) -> None:
    accounts = open_accounts(postgres_url)
    store = open_store(postgres_url)
    try:
        assert isinstance(accounts, PostgresAccounts) and isinstance(store, PostgresStore)
        assert accounts.applied_migrations == [fn.__name__ for fn in MIGRATIONS]
        assert store.applied_migrations == []
    finally:
        store.close()
        accounts.close()


def test_an_unreachable_server_is_a_store_error() -> None:
    with pytest.raises(StoreError, match="cannot open the PostgreSQL database"):
        open_accounts("postgresql://docuchat@127.0.0.1:1/docuchat")
