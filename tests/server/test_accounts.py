"""The accounts store on a real SQLite file: keys, conversations and upload jobs, by owner."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from docuchat.corpus.ingest import IngestedFile, SkippedFile
from docuchat.errors import AuthError, ConfigError, NotFound, StoreError
from docuchat.store import open_store
from docuchat.store.accounts import SQLiteAccounts, Turn, open_accounts


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "docuchat.db"


@pytest.fixture
def accounts(db: Path) -> Iterator[SQLiteAccounts]:
    accounts = SQLiteAccounts(db)
    yield accounts
    accounts.close()


def test_a_new_key_authenticates_its_user_and_only_its_hash_is_stored(
    accounts: SQLiteAccounts, db: Path
) -> None:
    user, key = accounts.add_user("alice")
    assert accounts.authenticate(key) == user
    secret = key.split("_", 2)[2]
    rows = sqlite3.connect(db).execute("SELECT key_id, secret_sha256 FROM api_keys").fetchall()
    assert rows == [(key.split("_")[1], hashlib.sha256(secret.encode()).hexdigest())]
    assert secret not in db.read_bytes().decode("latin-1")


def test_wrong_malformed_and_foreign_keys_are_refused(accounts: SQLiteAccounts) -> None:
    _, key = accounts.add_user("alice")
    tampered = key[:-1] + ("A" if key[-1] != "A" else "B")
    for bad in (tampered, "dc_000000000000_" + key[-43:], "Bearer " + key, "", "dc_x_y"):
        with pytest.raises(AuthError):
            accounts.authenticate(bad)


def test_every_key_of_a_user_works(accounts: SQLiteAccounts) -> None:
    user, first = accounts.add_user("alice")
    second = accounts.new_key("alice")
    assert first != second
    assert accounts.authenticate(first) == accounts.authenticate(second) == user
    with pytest.raises(NotFound):
        accounts.new_key("nobody")


def test_user_names_are_unique_and_checked(accounts: SQLiteAccounts) -> None:
    accounts.add_user("alice")
    with pytest.raises(StoreError, match="already exists"):
        accounts.add_user("alice")
    for bad in ("", "-dash", "has space", "x" * 65, "semi;colon"):
        with pytest.raises(StoreError, match="invalid user name"):
            accounts.add_user(bad)
    assert [u.name for u in accounts.list_users()] == ["alice"]


def test_accounts_share_the_document_database(db: Path) -> None:
    store = open_store(db)
    accounts = open_accounts(db)
    try:
        tables = {name for (name,) in sqlite3.connect(db).execute("SELECT name FROM sqlite_master")}
        assert {"documents", "users", "api_keys", "conversations", "turns", "upload_jobs"} <= tables
    finally:
        accounts.close()
        store.close()


def test_a_postgres_url_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        open_accounts("postgresql://localhost/docuchat")


def test_conversations_keep_their_turns_and_belong_to_one_owner(accounts: SQLiteAccounts) -> None:
    conversation = accounts.create_conversation("alice", "Highlands")
    citation = {"n": 1, "title": "Valuation", "span": [0, 10], "verified": True}
    accounts.add_turn("alice", conversation.id, Turn("Q1?", "A1 [1]", (citation,), "answered"))
    accounts.add_turn("alice", conversation.id, Turn("Q2?", "", (), "cancelled"))

    stored = accounts.get_conversation("alice", conversation.id)
    assert [(t.question, t.answer, t.outcome) for t in stored.turns] == [
        ("Q1?", "A1 [1]", "answered"),
        ("Q2?", "", "cancelled"),
    ]
    assert stored.turns[0].citations == (citation,)
    assert stored.updated_at >= conversation.updated_at
    [summary] = accounts.list_conversations("alice")
    assert (summary.id, summary.turn_count) == (conversation.id, 2)

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


def test_conversations_are_listed_most_recent_first(accounts: SQLiteAccounts) -> None:
    first = accounts.create_conversation("alice", "first")
    second = accounts.create_conversation("alice", "second")
    assert [c.id for c in accounts.list_conversations("alice")] == [second.id, first.id]
    accounts.add_turn("alice", first.id, Turn("Q?", "A", (), "answered"))
    assert [c.id for c in accounts.list_conversations("alice")] == [first.id, second.id]


def test_jobs_record_progress_and_belong_to_one_owner(accounts: SQLiteAccounts) -> None:
    job = accounts.create_job("alice", ["a.md", "b.pdf"])
    assert (job.status, job.done, job.files) == ("queued", 0, ("a.md", "b.pdf"))
    added = IngestedFile("a.md", "added", "doc1", "A", 1, 2)
    skipped = SkippedFile("b.pdf", "corrupt file", "the PDF cannot be read")
    accounts.save_job(replace(job, status="done", done=2, documents=(added,), skipped=(skipped,)))

    stored = accounts.get_job("alice", job.id)
    assert (stored.status, stored.done, stored.documents, stored.skipped) == (
        "done",
        2,
        (added,),
        (skipped,),
    )
    with pytest.raises(NotFound):
        accounts.get_job("bob", job.id)


def test_unfinished_jobs_fail_when_the_server_restarts(db: Path) -> None:
    accounts = open_accounts(db)
    queued = accounts.create_job("alice", ["a.md"])
    accounts.close()

    reopened = open_accounts(db)
    try:
        assert reopened.fail_unfinished_jobs("server restarted") == 1
        job = reopened.get_job("alice", queued.id)
        assert (job.status, job.error) == ("failed", "server restarted")
    finally:
        reopened.close()
