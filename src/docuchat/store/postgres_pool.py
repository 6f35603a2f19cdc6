"""A pool of connections to a PostgreSQL database whose migrations have been applied."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg_pool import ConnectionPool, PoolTimeout

from docuchat.errors import StoreError
from docuchat.store.postgres_schema import apply_migrations
from docuchat.store.waiting import refuse_under_never_wait

CONNECT_TIMEOUT_S = 10  # unless the URL says otherwise


def open_migrated_pool(
    conninfo: str,
    *,
    name: str,
    max_size: int,
    configure: Callable[[psycopg.Connection[Any]], None] | None = None,
) -> tuple[ConnectionPool, list[str]]:
    """Apply the migrations not yet applied, then open a pool; return it and what was applied.

    ``conninfo`` is a ``postgresql://`` URL or a libpq ``key=value`` string.
    """
    try:
        conninfo = with_connect_timeout(conninfo)
        with psycopg.connect(conninfo, autocommit=True) as conn:
            applied = apply_migrations(conn)
    except psycopg.Error as exc:
        raise StoreError(f"cannot open the PostgreSQL database: {exc}") from exc
    pool = ConnectionPool(
        conninfo, min_size=1, max_size=max_size, configure=configure, name=name, open=True
    )
    return pool, applied


def with_connect_timeout(conninfo: str) -> str:
    """``conninfo`` with a connect timeout unless it has its own: a server that does not
    answer fails the open instead of hanging it."""
    params = {"connect_timeout": CONNECT_TIMEOUT_S} | conninfo_to_dict(conninfo)
    return make_conninfo("", **params)


@contextmanager
def pooled_transaction(
    pool: ConnectionPool, *, timeout: float | None = None
) -> Iterator[psycopg.Connection[Any]]:
    """A pooled connection in a transaction: committed at the end, rolled back on any error.

    ``timeout``: how long to wait for a connection (the pool's default: 30 s).
    Never under ``never_wait``: every call is a round trip to the server.
    """
    refuse_under_never_wait("a PostgreSQL call")
    try:
        with pool.connection(timeout=timeout) as conn:
            yield conn
    except (psycopg.Error, PoolTimeout) as exc:
        raise StoreError(f"database error: {exc}") from exc


def iso_utc(timestamp: datetime) -> str:
    """A ``timestamptz`` as the SQLite backends write times: ISO 8601 in UTC, to the microsecond."""
    return timestamp.astimezone(UTC).isoformat(timespec="microseconds")
