"""The coordination of the processes of one machine, in the SQLite file they share.

SQLite serialises writers, so a claim (a sweep of what dead processes left,
then taking the oldest claimable job) is one write transaction and needs no
row locks. SQLite cannot notify, so :class:`PolledSignals` looks every
``POLL_S`` seconds, with one indexed read. Times are Unix times from the
processes' shared clock.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from docuchat.store.accounts import utc_now
from docuchat.store.coordination import OPEN, Signal
from docuchat.store.coordination_sql import Cursor, Executor
from docuchat.store.sqlite_file import SQLiteFile

POLL_S = 0.1
"""How often a waiting process looks for new jobs and cancel requests."""


class SQLiteDialect:
    """The statements of ``coordination_sql`` on a SQLite file."""

    skip_locked = ""  # a claim is a write transaction: no other writer runs meanwhile

    def __init__(self, path: str | Path, *, dead_after: float) -> None:
        self.dead_after = dead_after
        self._file = SQLiteFile(path)

    @contextmanager
    def transaction(
        self, *, write: bool = True, timeout: float | None = None
    ) -> Iterator[Executor]:
        with self._file.write() if write else self._file.read() as db:
            yield _SQLiteExecutor(db, self.dead_after)

    def lock_queue(self, db: Executor) -> None:
        pass  # the write transaction already keeps every other submitter out

    def notify(self, db: Executor, channel: str, payload: str) -> None:
        pass  # nobody listens: PolledSignals looks

    def encode(self, value: Any) -> Any:
        return json.dumps(value, ensure_ascii=False)

    def decode(self, value: Any) -> Any:
        return json.loads(value)

    def timestamp(self, value: Any) -> str:
        return str(value)

    def signals(self, process_id: str) -> PolledSignals:
        return PolledSignals(self._file, process_id)

    def close(self) -> None:
        self._file.close()


class _SQLiteExecutor:
    def __init__(self, db: sqlite3.Connection, dead_after: float) -> None:
        self._db = db
        self._dead_after = dead_after

    def execute(
        self, sql: str, params: Mapping[str, Any] | None = None, *, binary: bool = False
    ) -> Cursor:
        now = time.time()
        clock = {"_now": now, "_alive": now - self._dead_after, "_stamp": utc_now()}
        return self._db.execute(_sqlite(sql), {**clock, **(params or {})})


@cache
def _sqlite(sql: str) -> str:
    return sql.format(now=":_now", alive=":_alive", ago="(:_now - :seconds)", stamp=":_stamp")


class PolledSignals:
    """Looks every ``POLL_S`` seconds for a newer queued job or a cancel request for the process."""

    def __init__(self, file: SQLiteFile, process_id: str) -> None:
        self._file = file
        self._process_id = process_id
        self._newest_job: str | None = None

    def wait(self, timeout: float) -> set[Signal]:
        deadline = time.monotonic() + timeout
        while True:
            found = self._look()
            remaining = deadline - time.monotonic()
            if found or remaining <= 0:
                return found
            time.sleep(min(POLL_S, remaining))

    def close(self) -> None:
        pass

    def _look(self) -> set[Signal]:
        with self._file.read() as db:
            newest, cancels = db.execute(
                f"SELECT (SELECT max(created_at) FROM upload_jobs WHERE {OPEN}"
                " AND status = 'queued'), EXISTS (SELECT 1 FROM cancel_requests"
                " WHERE process = ? AND answer IS NULL)",
                (self._process_id,),
            ).fetchone()
        found: set[Signal] = {"cancels"} if cancels else set()
        if newest is not None and newest != self._newest_job:
            found.add("jobs")
        self._newest_job = newest
        return found
