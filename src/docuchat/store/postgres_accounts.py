"""The server's accounts in PostgreSQL, next to the documents of a :class:`PostgresStore`.

Same behaviour as :class:`~docuchat.store.accounts.SQLiteAccounts`, on pooled
connections; the tables come from ``postgres_schema``'s migrations. Every
call is a network round trip, so under
:func:`~docuchat.store.waiting.never_wait` (an event loop) each one raises
``WouldWait`` before it touches the network, and the caller moves it to a
worker thread.
"""

from __future__ import annotations

import uuid
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from docuchat.errors import NotFound, StoreError
from docuchat.store.accounts import (
    Conversation,
    ConversationSummary,
    Turn,
    User,
    check_secret,
    check_user_name,
    new_api_key,
    parse_api_key,
    step_rows,
    turn_steps,
)
from docuchat.store.postgres_pool import iso_utc, open_migrated_pool, pooled_transaction

Connection = psycopg.Connection[Any]


class PostgresAccounts:
    """Accounts in a PostgreSQL database. Thread safe: each call runs on a pooled connection.

    ``conninfo`` is a ``postgresql://`` URL or a libpq ``key=value`` string.
    """

    def __init__(self, conninfo: str, *, max_connections: int = 10) -> None:
        self._pool, self.applied_migrations = open_migrated_pool(
            conninfo, name="docuchat-accounts", max_size=max_connections
        )

    def close(self) -> None:
        self._pool.close()

    # -- users and keys ------------------------------------------------------

    def add_user(self, name: str) -> tuple[User, str]:
        check_user_name(name)
        now = _now()
        with self._transaction() as conn:
            added = conn.execute(
                "INSERT INTO users (id, name, created_at) VALUES (%s, %s, %s)"
                " ON CONFLICT DO NOTHING",
                (name, name, now),
            )
            if added.rowcount == 0:
                raise StoreError(f"user {name!r} already exists")
            key = _insert_key(conn, name)
        return User(id=name, name=name, created_at=iso_utc(now)), key

    def new_key(self, name: str) -> str:
        with self._transaction() as conn:
            return _insert_key(conn, name)

    def list_users(self) -> list[User]:
        with self._transaction() as conn:
            rows = conn.execute(
                "SELECT id, name, created_at FROM users ORDER BY created_at, id"
            ).fetchall()
        return [User(user_id, name, iso_utc(created)) for user_id, name, created in rows]

    def authenticate(self, key: str) -> User:
        key_id, secret = parse_api_key(key)
        with self._transaction() as conn:
            row = conn.execute(
                "SELECT k.secret_sha256, u.id, u.name, u.created_at FROM api_keys k"
                " JOIN users u ON u.id = k.user_id WHERE k.key_id = %s",
                (key_id,),
            ).fetchone()
        check_secret(secret, row[0] if row else None)
        assert row is not None  # check_secret refuses a key that has no row
        return User(row[1], row[2], iso_utc(row[3]))

    # -- conversations -------------------------------------------------------

    def create_conversation(self, owner: str, title: str) -> Conversation:
        now = _now()
        conversation = Conversation(uuid.uuid4().hex[:16], title, iso_utc(now), iso_utc(now), ())
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO conversations (id, owner, title, created_at, updated_at)"
                " VALUES (%s, %s, %s, %s, %s)",
                (conversation.id, owner, title, now, now),
            )
        return conversation

    def list_conversations(self, owner: str) -> list[ConversationSummary]:
        with self._transaction() as conn:
            rows = conn.execute(
                "SELECT c.id, c.title, c.created_at, c.updated_at,"
                " (SELECT count(*) FROM turns t WHERE t.conversation_key = c.key)"
                " FROM conversations c WHERE c.owner = %s"
                " ORDER BY c.updated_at DESC, c.key DESC",
                (owner,),
            ).fetchall()
        return [
            ConversationSummary(conversation_id, title, iso_utc(created), iso_utc(updated), count)
            for conversation_id, title, created, updated, count in rows
        ]

    def get_conversation(self, owner: str, conversation_id: str) -> Conversation:
        with self._transaction() as conn:
            found = conn.execute(
                "SELECT key, title, created_at, updated_at FROM conversations"
                " WHERE owner = %s AND id = %s",
                (owner, conversation_id),
            ).fetchone()
            if found is None:
                raise NotFound(f"no conversation {conversation_id!r}")
            key, title, created_at, updated_at = found
            rows = conn.execute(
                "SELECT question, answer, citations, outcome, created_at, steps, mode_reason"
                " FROM turns WHERE conversation_key = %s ORDER BY key",
                (key,),
            ).fetchall()
        turns = tuple(
            Turn(
                question,
                answer,
                tuple(citations),
                outcome,
                iso_utc(created),
                turn_steps(steps),
                mode_reason,
            )
            for question, answer, citations, outcome, created, steps, mode_reason in rows
        )
        return Conversation(conversation_id, title, iso_utc(created_at), iso_utc(updated_at), turns)

    def delete_conversation(self, owner: str, conversation_id: str) -> None:
        with self._transaction() as conn:
            deleted = conn.execute(
                "DELETE FROM conversations WHERE owner = %s AND id = %s", (owner, conversation_id)
            )
            if deleted.rowcount == 0:
                raise NotFound(f"no conversation {conversation_id!r}")

    def add_turn(self, owner: str, conversation_id: str, turn: Turn) -> None:
        now = turn.created_at or _now()  # PostgreSQL reads an ISO 8601 string as a timestamp
        with self._transaction() as conn:
            found = conn.execute(
                "UPDATE conversations SET updated_at = %s WHERE owner = %s AND id = %s"
                " RETURNING key",
                (now, owner, conversation_id),
            ).fetchone()
            if found is None:
                raise NotFound(f"no conversation {conversation_id!r}")
            conn.execute(
                "INSERT INTO turns (conversation_key, question, answer, citations, outcome,"
                " created_at, steps, mode_reason) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    found[0],
                    turn.question,
                    turn.answer,
                    Jsonb(list(turn.citations)),
                    turn.outcome,
                    now,
                    Jsonb(step_rows(turn)),
                    turn.mode_reason,
                ),
            )

    def _transaction(self) -> AbstractContextManager[Connection]:
        return pooled_transaction(self._pool)


def _insert_key(conn: Connection, user_id: str) -> str:
    key_id, secret_sha256, key = new_api_key()
    inserted = conn.execute(
        "INSERT INTO api_keys (key_id, user_id, secret_sha256, created_at)"
        " SELECT %s, id, %s, %s FROM users WHERE id = %s",
        (key_id, secret_sha256, _now(), user_id),
    )
    if inserted.rowcount == 0:
        raise NotFound(f"no user {user_id!r}")
    return key


def _now() -> datetime:
    return datetime.now(UTC)


__all__ = ["PostgresAccounts"]
