"""The server's own records: users and their API keys, conversations; what an upload job is.

:class:`Accounts` says nothing of SQL: :class:`SQLiteAccounts` keeps the
records in the same SQLite file as the documents, ``PostgresAccounts``
(``postgres_accounts``) in the same PostgreSQL database; the tables come from
each store's migrations. As in the document store, every read of a
conversation takes the owner, and an id that is unknown or someone else's
raises the same ``NotFound``. Upload jobs live in the queue that the server's
processes share (``coordination``), in the same database.

An API key is ``dc_<key id>_<secret>``. Only the SHA-256 of the secret is
stored (the secret is 256 random bits, so a plain hash is enough) and it is
compared in constant time; the key itself is shown once, when it is made.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import sqlite3
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Protocol

from docuchat.errors import AuthError, NotFound, StoreError
from docuchat.store.postgres_extra import is_postgres, postgres_extra
from docuchat.store.sqlite_file import SQLiteFile

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_KEY = re.compile(r"dc_([0-9a-f]{12})_([A-Za-z0-9_-]{43})")


@dataclass(frozen=True, slots=True)
class User:
    id: str
    """Also the owner of the user's documents in the store (the CLI's ``--owner``)."""
    name: str
    created_at: str


StepStatus = Literal["complete", "error"]


@dataclass(frozen=True, slots=True)
class TurnStep:
    """One tool step of an answered turn, kept as it was shown, to be shown again."""

    step_id: str
    tool_name: str
    tool_input: Mapping[str, Any]
    status: StepStatus
    action: str
    message: str
    summary: str
    detail: str
    """The tool's full output."""
    duration_ms: float
    timestamp: float
    note: str = ""
    """What the model wrote on its way, in the response that made this call."""


@dataclass(frozen=True, slots=True)
class Turn:
    question: str
    answer: str
    citations: tuple[Mapping[str, Any], ...]
    outcome: str
    created_at: str = ""
    steps: tuple[TurnStep, ...] = ()
    mode_reason: str = ""
    """Why the answer came in another mode than asked (``Answer.mode_reason``)."""


@dataclass(frozen=True, slots=True)
class ConversationSummary:
    id: str
    title: str
    created_at: str
    updated_at: str
    turn_count: int


@dataclass(frozen=True, slots=True)
class Conversation:
    id: str
    title: str
    created_at: str
    updated_at: str
    turns: tuple[Turn, ...]


class Accounts(Protocol):
    """Users, keys and conversations for many owners in one database (upload jobs are the
    queue's: ``coordination``)."""

    def add_user(self, name: str) -> tuple[User, str]:
        """Create a user; returns it with its first API key (the only time the key is seen)."""
        ...

    def new_key(self, name: str) -> str:
        """Another API key for an existing user."""
        ...

    def list_users(self) -> list[User]: ...

    def authenticate(self, key: str) -> User:
        """The user an API key belongs to; ``AuthError`` for anything else."""
        ...

    def create_conversation(self, owner: str, title: str) -> Conversation: ...

    def list_conversations(self, owner: str) -> list[ConversationSummary]:
        """Most recently updated first."""
        ...

    def get_conversation(self, owner: str, conversation_id: str) -> Conversation: ...

    def delete_conversation(self, owner: str, conversation_id: str) -> None: ...

    def add_turn(self, owner: str, conversation_id: str, turn: Turn) -> None: ...

    def close(self) -> None: ...


def open_accounts(location: str | Path) -> Accounts:
    """Open (creating and migrating if needed) the accounts at a SQLite file path or at a
    ``postgresql://`` URL (which needs the ``postgres`` extra)."""
    if is_postgres(location):
        with postgres_extra("PostgreSQL accounts need"):
            from docuchat.store.postgres_accounts import PostgresAccounts
        return PostgresAccounts(str(location))
    return SQLiteAccounts(location)


# -- what every backend checks the same way ---------------------------------------------


def check_user_name(name: str) -> None:
    if not _NAME.fullmatch(name):
        raise StoreError(
            f"invalid user name {name!r}: use 1 to 64 letters, digits, '.', '_' or '-',"
            " starting with a letter or digit"
        )


def new_api_key() -> tuple[str, str, str]:
    """A fresh key: its id, its secret's SHA-256 (what is stored) and the key itself."""
    key_id, secret = secrets.token_hex(6), secrets.token_urlsafe(32)
    return key_id, _sha256(secret), f"dc_{key_id}_{secret}"


def parse_api_key(key: str) -> tuple[str, str]:
    """A key's id and secret; ``AuthError`` if it is not shaped like a key."""
    match = _KEY.fullmatch(key)
    if match is None:
        raise AuthError("malformed API key")
    key_id, secret = match.groups()
    return key_id, secret


def check_secret(secret: str, stored_sha256: str | None) -> None:
    """``AuthError`` unless ``secret`` hashes to the stored hash (compared in constant time)."""
    if not hmac.compare_digest(_sha256(secret), stored_sha256 or ""):
        raise AuthError("unknown API key")


class SQLiteAccounts:
    """Accounts in a SQLite file. Safe to share between threads (calls are serialised)."""

    def __init__(self, path: str | Path) -> None:
        self._file = SQLiteFile(path)
        self.path = self._file.path
        self._read, self._write = self._file.read, self._file.write

    def close(self) -> None:
        self._file.close()

    # -- users and keys ------------------------------------------------------

    def add_user(self, name: str) -> tuple[User, str]:
        check_user_name(name)
        user = User(id=name, name=name, created_at=utc_now())
        with self._write() as db:
            if db.execute("SELECT 1 FROM users WHERE id = ?", (name,)).fetchone():
                raise StoreError(f"user {name!r} already exists")
            db.execute(
                "INSERT INTO users (id, name, created_at) VALUES (?, ?, ?)",
                (user.id, user.name, user.created_at),
            )
            key = _insert_key(db, user.id)
        return user, key

    def new_key(self, name: str) -> str:
        with self._write() as db:
            if not db.execute("SELECT 1 FROM users WHERE id = ?", (name,)).fetchone():
                raise NotFound(f"no user {name!r}")
            return _insert_key(db, name)

    def list_users(self) -> list[User]:
        with self._read() as db:
            rows = db.execute("SELECT id, name, created_at FROM users ORDER BY created_at, id")
            return [User(*row) for row in rows]

    def authenticate(self, key: str) -> User:
        key_id, secret = parse_api_key(key)
        with self._read() as db:
            row = db.execute(
                "SELECT k.secret_sha256, u.id, u.name, u.created_at FROM api_keys k"
                " JOIN users u ON u.id = k.user_id WHERE k.key_id = ?",
                (key_id,),
            ).fetchone()
        check_secret(secret, row[0] if row else None)
        return User(*row[1:])

    # -- conversations -------------------------------------------------------

    def create_conversation(self, owner: str, title: str) -> Conversation:
        now = utc_now()
        conversation = Conversation(uuid.uuid4().hex[:16], title, now, now, ())
        with self._write() as db:
            db.execute(
                "INSERT INTO conversations (id, owner, title, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (conversation.id, owner, title, now, now),
            )
        return conversation

    def list_conversations(self, owner: str) -> list[ConversationSummary]:
        with self._read() as db:
            rows = db.execute(
                "SELECT c.id, c.title, c.created_at, c.updated_at,"
                " (SELECT COUNT(*) FROM turns t WHERE t.conversation_key = c.key)"
                " FROM conversations c WHERE c.owner = ? ORDER BY c.updated_at DESC, c.key DESC",
                (owner,),
            )
            return [ConversationSummary(*row) for row in rows]

    def get_conversation(self, owner: str, conversation_id: str) -> Conversation:
        with self._read() as db:
            key = _conversation_key(db, owner, conversation_id)
            title, created_at, updated_at = db.execute(
                "SELECT title, created_at, updated_at FROM conversations WHERE key = ?", (key,)
            ).fetchone()
            turns = tuple(
                Turn(
                    question,
                    answer,
                    tuple(json.loads(citations)),
                    outcome,
                    created,
                    turn_steps(json.loads(steps)),
                    mode_reason,
                )
                for question, answer, citations, outcome, created, steps, mode_reason in (
                    db.execute(
                        "SELECT question, answer, citations, outcome, created_at, steps,"
                        " mode_reason FROM turns WHERE conversation_key = ? ORDER BY key",
                        (key,),
                    )
                )
            )
        return Conversation(conversation_id, title, created_at, updated_at, turns)

    def delete_conversation(self, owner: str, conversation_id: str) -> None:
        with self._write() as db:
            key = _conversation_key(db, owner, conversation_id)
            db.execute("DELETE FROM conversations WHERE key = ?", (key,))

    def add_turn(self, owner: str, conversation_id: str, turn: Turn) -> None:
        now = turn.created_at or utc_now()
        with self._write() as db:
            key = _conversation_key(db, owner, conversation_id)
            db.execute(
                "INSERT INTO turns (conversation_key, question, answer, citations, outcome,"
                " created_at, steps, mode_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    turn.question,
                    turn.answer,
                    json.dumps(list(turn.citations), ensure_ascii=False),
                    turn.outcome,
                    now,
                    json.dumps(step_rows(turn), ensure_ascii=False),
                    turn.mode_reason,
                ),
            )
            db.execute("UPDATE conversations SET updated_at = ? WHERE key = ?", (now, key))


def _insert_key(db: sqlite3.Connection, user_id: str) -> str:
    key_id, secret_sha256, key = new_api_key()
    db.execute(
        "INSERT INTO api_keys (key_id, user_id, secret_sha256, created_at) VALUES (?, ?, ?, ?)",
        (key_id, user_id, secret_sha256, utc_now()),
    )
    return key


def _conversation_key(db: sqlite3.Connection, owner: str, conversation_id: str) -> int:
    row = db.execute(
        "SELECT key FROM conversations WHERE owner = ? AND id = ?", (owner, conversation_id)
    ).fetchone()
    if row is None:
        raise NotFound(f"no conversation {conversation_id!r}")
    return int(row[0])


def step_rows(turn: Turn) -> list[dict[str, Any]]:
    """A turn's steps as the JSON every backend stores."""
    return [asdict(step) for step in turn.steps]


def turn_steps(rows: Sequence[Mapping[str, Any]]) -> tuple[TurnStep, ...]:
    """Steps back from their stored JSON (turns saved before steps were kept have none)."""
    return tuple(TurnStep(**row) for row in rows)


def _sha256(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def utc_now() -> str:
    """Now, as every SQLite timestamp is written: ISO 8601 in UTC, to the microsecond."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


__all__ = [
    "Accounts",
    "Conversation",
    "ConversationSummary",
    "SQLiteAccounts",
    "Turn",
    "TurnStep",
    "User",
    "open_accounts",
]
