"""The coordination of the processes of any number of hosts, in their PostgreSQL database.

Times are the database server's (``now()``), so the hosts' clocks may
disagree. A new job and a cancel request are announced with NOTIFY on the
channels ``docuchat_jobs`` and ``docuchat_cancels`` (whose payload is the
process the request is for); :class:`NotifiedSignals` listens on a connection
of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from docuchat.errors import StoreError
from docuchat.store.coordination import Signal
from docuchat.store.coordination_sql import CANCELS_CHANNEL, JOBS_CHANNEL, Cursor, Executor
from docuchat.store.postgres_pool import (
    iso_utc,
    open_migrated_pool,
    pooled_transaction,
    with_connect_timeout,
)

_QUEUE_LOCK = 0x646F6371  # advisory lock: one submitter at a time checks the queue's room


class PostgresDialect:
    """The statements of ``coordination_sql`` on pooled PostgreSQL connections."""

    skip_locked = "FOR UPDATE SKIP LOCKED"

    def __init__(self, conninfo: str, *, dead_after: float, max_connections: int = 4) -> None:
        self.dead_after = dead_after
        self._conninfo = with_connect_timeout(conninfo)
        self._pool, self.applied_migrations = open_migrated_pool(
            conninfo, name="docuchat-coordination", max_size=max_connections
        )

    @contextmanager
    def transaction(
        self, *, write: bool = True, timeout: float | None = None
    ) -> Iterator[Executor]:
        with pooled_transaction(self._pool, timeout=timeout) as conn:
            if timeout is not None:
                conn.execute("SELECT set_config('statement_timeout', %s, true)", (f"{timeout}s",))
            yield _PostgresExecutor(conn, self.dead_after)

    def lock_queue(self, db: Executor) -> None:
        db.execute("SELECT pg_advisory_xact_lock(:lock)", {"lock": _QUEUE_LOCK})

    def notify(self, db: Executor, channel: str, payload: str) -> None:
        db.execute("SELECT pg_notify(:channel, :payload)", {"channel": channel, "payload": payload})

    def encode(self, value: Any) -> Any:
        return Jsonb(value)

    def decode(self, value: Any) -> Any:
        return value  # jsonb comes back decoded

    def timestamp(self, value: Any) -> str:
        return iso_utc(value)

    def signals(self, process_id: str) -> NotifiedSignals:
        return NotifiedSignals(self._conninfo, process_id)

    def close(self) -> None:
        self._pool.close()


class _PostgresExecutor:
    def __init__(self, conn: psycopg.Connection[Any], dead_after: float) -> None:
        self._conn = conn
        self._dead_after = dead_after

    def execute(
        self, sql: str, params: Mapping[str, Any] | None = None, *, binary: bool = False
    ) -> Cursor:
        values = {"_dead_after": self._dead_after, **(params or {})}
        return self._conn.execute(_postgres(sql), values, binary=binary)


@cache
def _postgres(sql: str) -> str:
    sql = sql.format(
        now="now()",
        alive="now() - make_interval(secs => :_dead_after)",
        ago="now() - make_interval(secs => :seconds)",
        stamp="now()",
    )
    return re.sub(r"(?<![:\w]):(\w+)", r"%(\1)s", sql)


class NotifiedSignals:
    """LISTENs on a connection of its own for new jobs and the process's cancel requests."""

    def __init__(self, conninfo: str, process_id: str) -> None:
        self._process_id = process_id
        try:
            self._conn = psycopg.connect(conninfo, autocommit=True)
            self._conn.execute(f"LISTEN {JOBS_CHANNEL}")
            self._conn.execute(f"LISTEN {CANCELS_CHANNEL}")
        except psycopg.Error as exc:
            raise StoreError(f"cannot listen for notifications: {exc}") from exc

    def wait(self, timeout: float) -> set[Signal]:
        try:
            # The first notification (or the timeout), then whatever came with it.
            notifies = list(self._conn.notifies(timeout=timeout, stop_after=1))
            if notifies:
                notifies += self._conn.notifies(timeout=0)
        except psycopg.Error as exc:
            raise StoreError(f"lost the notifications connection: {exc}") from exc
        found: set[Signal] = set()
        for notify in notifies:
            if notify.channel == JOBS_CHANNEL:
                found.add("jobs")
            elif notify.payload == self._process_id:
                found.add("cancels")
        return found

    def close(self) -> None:
        self._conn.close()
