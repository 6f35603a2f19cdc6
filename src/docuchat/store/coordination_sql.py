"""The coordination's statements, once, for SQLite and PostgreSQL alike.

Each statement is written with ``:name`` parameters and a few ``{fragments}``
that a :class:`Dialect` fills in: what "now" is (the database server's clock
on PostgreSQL, so that hosts may disagree; the machine's on SQLite), the
queue's lock, NOTIFY, how JSON and times are stored. The engines differ in how
a process waits for signals, which each engine's module keeps
(``sqlite_coordination``, ``postgres_coordination``).

A claim reads the oldest claimable job ``FOR UPDATE SKIP LOCKED`` on
PostgreSQL, so processes claiming at once each get another job; SQLite
serialises writers, so its claim is simply one write transaction.

A statement with RETURNING is read with ``fetchall()`` even for one row: a
SQLite statement not run to its end would keep its transaction from committing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from docuchat.errors import NotFound
from docuchat.store.coordination import (
    FORGET_PROCESS_AFTER_S,
    FORGET_REQUEST_AFTER_S,
    JOB_COLUMNS,
    OPEN,
    CancelRequest,
    Claim,
    ProcessInfo,
    QueueStats,
    Signals,
    SpooledFile,
    UploadJob,
    check_room,
    gave_up,
    job_progress,
    new_job_id,
    new_token,
    parts,
    upload_job,
)

JOBS_CHANNEL = "docuchat_jobs"
CANCELS_CHANNEL = "docuchat_cancels"
STATS_TIMEOUT_S = 2.0
"""``stats`` (the health check) gives up after this long rather than hang with the database."""

_DEAD = (
    "NOT EXISTS (SELECT 1 FROM processes p WHERE p.id = upload_jobs.worker AND p.seen_at > {alive})"
)
_FENCED = "id = :id AND claim = :token AND status = 'running'"
_GIVEN_UP = f"{OPEN} AND status = 'running' AND attempts >= :max AND {_DEAD}"
_CLAIMABLE = (
    f"SELECT id FROM upload_jobs WHERE {OPEN} AND (status = 'queued' OR {_DEAD})"
    " ORDER BY created_at LIMIT 1"
)


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Executor(Protocol):
    """A connection in a transaction. Statements take ``:name`` parameters and these
    fragments: ``{now}`` (the time to store in ``seen_at`` and ``created_at`` of processes and
    cancel requests), ``{alive}`` (the oldest heartbeat of a live process), ``{ago}`` (now
    minus the parameter ``seconds``) and ``{stamp}`` (an upload job's timestamp)."""

    def execute(
        self, sql: str, params: Mapping[str, Any] | None = None, *, binary: bool = False
    ) -> Cursor: ...


class Dialect(Protocol):
    """What the two engines do differently."""

    dead_after: float
    """Seconds without a heartbeat after which a process is dead (``{alive}``)."""
    skip_locked: str
    """What makes a claim's read skip rows that another claim holds (or nothing)."""

    def transaction(
        self, *, write: bool = True, timeout: float | None = None
    ) -> AbstractContextManager[Executor]:
        """A transaction (``write=False``: one that only reads); ``timeout`` bounds the wait
        for the database where the engine can."""
        ...

    def lock_queue(self, db: Executor) -> None:
        """Until the transaction ends, no other submitter checks the queue's room."""
        ...

    def notify(self, db: Executor, channel: str, payload: str) -> None: ...

    def encode(self, value: Any) -> Any:
        """A JSON column's value."""
        ...

    def decode(self, value: Any) -> Any: ...

    def timestamp(self, value: Any) -> str: ...

    def signals(self, process_id: str) -> Signals: ...

    def close(self) -> None: ...


class SQLCoordination:
    """:class:`~docuchat.store.coordination.Coordination` over a :class:`Dialect`."""

    def __init__(self, dialect: Dialect) -> None:
        self.dead_after = dialect.dead_after
        self._dialect = dialect
        self._tx = dialect.transaction

    def close(self) -> None:
        self._dialect.close()

    # -- processes -----------------------------------------------------------

    def heartbeat(self, process: ProcessInfo) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO processes (id, host, pid, ingests, seen_at)"
                " VALUES (:id, :host, :pid, :ingests, {now})"
                " ON CONFLICT (id) DO UPDATE SET seen_at = {now}",
                {
                    "id": process.id,
                    "host": process.host,
                    "pid": process.pid,
                    "ingests": process.ingests,
                },
            )
            for table, column, seconds in (
                ("processes", "seen_at", FORGET_PROCESS_AFTER_S),
                ("cancel_requests", "created_at", FORGET_REQUEST_AFTER_S),
            ):
                db.execute(f"DELETE FROM {table} WHERE {column} < {{ago}}", {"seconds": seconds})

    def leave(self, process_id: str) -> None:
        with self._tx() as db:
            db.execute("DELETE FROM processes WHERE id = :id", {"id": process_id})

    def is_alive(self, process_id: str) -> bool:
        with self._tx(write=False) as db:
            found = db.execute(
                "SELECT 1 FROM processes WHERE id = :id AND seen_at > {alive}",
                {"id": process_id},
            ).fetchone()
        return found is not None

    def live_processes(self) -> list[ProcessInfo]:
        with self._tx(write=False) as db:
            rows = db.execute(
                "SELECT id, host, pid, ingests FROM processes WHERE seen_at > {alive} ORDER BY id"
            ).fetchall()
        return [ProcessInfo(i, host, pid, bool(ingests)) for i, host, pid, ingests in rows]

    def signals(self, process_id: str) -> Signals:
        return self._dialect.signals(process_id)

    # -- the upload queue ----------------------------------------------------

    def queued_bytes(self) -> int:
        with self._tx(write=False) as db:
            return _queued_bytes(db)

    def submit(
        self, owner: str, files: Sequence[SpooledFile], *, worker: str, max_queued_bytes: int
    ) -> UploadJob:
        job = UploadJob(new_job_id(), owner, "queued", tuple(f.name for f in files))
        size = sum(f.size for f in files)
        with self._tx() as db:
            self._dialect.lock_queue(db)
            check_room(_queued_bytes(db), size, max_queued_bytes)
            created = db.execute(
                f"INSERT INTO upload_jobs ({JOB_COLUMNS}, worker, bytes) VALUES (:id, :owner,"
                " 'receiving', :files, :done, :documents, :skipped, :error, {stamp}, {stamp},"
                " :worker, :bytes) RETURNING created_at",
                {
                    **self._progress(job),
                    "id": job.id,
                    "owner": owner,
                    "worker": worker,
                    "bytes": size,
                },
            ).fetchall()[0]
        try:
            # One part per transaction: no transaction holds a whole upload, and other
            # writers of a SQLite file wait for one part at most.
            for position, part, data in parts(files):
                with self._tx() as db:
                    db.execute(
                        "INSERT INTO upload_parts (job_id, file, part, data)"
                        " VALUES (:id, :file, :part, :data)",
                        {"id": job.id, "file": position, "part": part, "data": data},
                        binary=True,
                    )
            with self._tx() as db:
                db.execute(
                    "UPDATE upload_jobs SET status = 'queued' WHERE id = :id", {"id": job.id}
                )
                self._dialect.notify(db, JOBS_CHANNEL, "")
        except BaseException:
            with self._tx() as db:
                db.execute("DELETE FROM upload_jobs WHERE id = :id", {"id": job.id})
            raise
        stamp = self._dialect.timestamp(created[0])
        return UploadJob(job.id, owner, "queued", job.files, created_at=stamp, updated_at=stamp)

    def get_job(self, owner: str, job_id: str) -> UploadJob:
        with self._tx(write=False) as db:
            row = db.execute(
                f"SELECT {JOB_COLUMNS} FROM upload_jobs"
                " WHERE owner = :owner AND id = :id AND status != 'receiving'",
                {"owner": owner, "id": job_id},
            ).fetchone()
        if row is None:
            raise NotFound(f"no upload job {job_id!r}")
        return self._job(row)

    def claim(self, worker: str, *, max_attempts: int) -> Claim | None:
        with self._tx(write=False) as db:  # most polls find nothing: no write for those
            if db.execute(_CLAIMABLE).fetchone() is None:
                return None
        params = {"max": max_attempts, "error": gave_up(max_attempts), "worker": worker}
        with self._tx() as db:
            # What dead processes left: half-received uploads, and jobs that killed too many.
            db.execute(f"DELETE FROM upload_jobs WHERE {OPEN} AND status = 'receiving' AND {_DEAD}")
            db.execute(
                f"DELETE FROM upload_parts WHERE job_id IN (SELECT id FROM upload_jobs"
                f" WHERE {_GIVEN_UP})",
                params,
            )
            db.execute(
                "UPDATE upload_jobs SET status = 'failed', error = :error, worker = NULL,"
                f" claim = NULL, updated_at = {{stamp}} WHERE {_GIVEN_UP}",
                params,
            )
            found = db.execute(f"{_CLAIMABLE} {self._dialect.skip_locked}").fetchone()
            if found is None:
                return None
            token = new_token()
            row = db.execute(
                "UPDATE upload_jobs SET status = 'running', worker = :worker, claim = :token,"
                " attempts = attempts + 1, updated_at = {stamp} WHERE id = :id"
                f" RETURNING {JOB_COLUMNS}, attempts",
                {**params, "token": token, "id": found[0]},
            ).fetchall()[0]
        return Claim(self._job(row[:-1]), token, row[-1])

    def read_file(self, claim: Claim, position: int) -> bytes:
        with self._tx(write=False) as db:
            rows = db.execute(
                "SELECT data FROM upload_parts WHERE job_id = :id AND file = :file ORDER BY part",
                {"id": claim.job.id, "file": position},
                binary=True,
            ).fetchall()
        return b"".join(bytes(data) for (data,) in rows)

    def save(self, claim: Claim, job: UploadJob) -> bool:
        with self._tx() as db:
            saved = db.execute(
                "UPDATE upload_jobs SET status = :status, files = :files, done = :done,"
                " documents = :documents, skipped = :skipped, error = :error,"
                f" updated_at = {{stamp}} WHERE {_FENCED}",
                self._fenced(claim, job),
            ).rowcount
            if saved and job.status in ("done", "failed"):
                db.execute("DELETE FROM upload_parts WHERE job_id = :id", {"id": claim.job.id})
        return saved == 1

    def release(self, claim: Claim, job: UploadJob) -> bool:
        with self._tx() as db:
            released = db.execute(
                "UPDATE upload_jobs SET status = 'queued', done = :done, documents = :documents,"
                " skipped = :skipped, worker = NULL, claim = NULL, attempts = attempts - 1,"
                f" updated_at = {{stamp}} WHERE {_FENCED}",
                self._fenced(claim, job),
            ).rowcount
            if released:
                self._dialect.notify(db, JOBS_CHANNEL, "")
        return released == 1

    def stats(self) -> QueueStats:
        with self._tx(write=False, timeout=STATS_TIMEOUT_S) as db:
            queued, running, size = db.execute(
                "SELECT coalesce(sum(CASE WHEN status = 'queued' THEN 1 ELSE 0 END), 0),"
                " coalesce(sum(CASE WHEN status = 'running' THEN 1 ELSE 0 END), 0),"
                f" coalesce(sum(bytes), 0) FROM upload_jobs WHERE {OPEN}"
            ).fetchone()
            processes, ingesting = db.execute(
                "SELECT count(*), coalesce(sum(CASE WHEN ingests THEN 1 ELSE 0 END), 0)"
                " FROM processes WHERE seen_at > {alive}"
            ).fetchone()
        return QueueStats(int(queued), int(running), int(size), int(processes), int(ingesting))

    # -- cancel requests -----------------------------------------------------

    def request_cancel(self, process_id: str, run_id: str, owner: str, reason: str) -> int:
        with self._tx() as db:
            row = db.execute(
                "INSERT INTO cancel_requests (process, run_id, owner, reason, created_at)"
                " VALUES (:process, :run_id, :owner, :reason, {now}) RETURNING key",
                {"process": process_id, "run_id": run_id, "owner": owner, "reason": reason},
            ).fetchall()[0]
            self._dialect.notify(db, CANCELS_CHANNEL, process_id)
        return int(row[0])

    def cancel_requests(self, process_id: str) -> list[CancelRequest]:
        with self._tx(write=False) as db:
            rows = db.execute(
                "SELECT key, run_id, owner, reason FROM cancel_requests"
                " WHERE process = :process AND answer IS NULL ORDER BY key",
                {"process": process_id},
            ).fetchall()
        return [CancelRequest(*row) for row in rows]

    def answer_cancel(self, key: int, cancelled: bool) -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE cancel_requests SET answer = :answer WHERE key = :key",
                {"key": key, "answer": cancelled},
            )

    def cancel_answer(self, key: int) -> bool | None:
        with self._tx(write=False) as db:  # a requester asks every few milliseconds
            row = db.execute(
                "SELECT answer FROM cancel_requests WHERE key = :key", {"key": key}
            ).fetchone()
        if row is None or row[0] is None:
            return None
        with self._tx() as db:
            db.execute("DELETE FROM cancel_requests WHERE key = :key", {"key": key})
        return bool(row[0])

    # -- rows ----------------------------------------------------------------

    def _progress(self, job: UploadJob) -> dict[str, Any]:
        return job_progress(job, encode=self._dialect.encode)

    def _fenced(self, claim: Claim, job: UploadJob) -> dict[str, Any]:
        return {**self._progress(job), "id": claim.job.id, "token": claim.token}

    def _job(self, row: Sequence[Any]) -> UploadJob:
        return upload_job(row, decode=self._dialect.decode, timestamp=self._dialect.timestamp)


def _queued_bytes(db: Executor) -> int:
    return int(
        db.execute(f"SELECT coalesce(sum(bytes), 0) FROM upload_jobs WHERE {OPEN}").fetchone()[0]
    )
