"""What the processes of one deployment share through its database, and nothing else.

Several ``docuchat serve`` processes (and ``docuchat worker`` processes) on one
database hold nothing another process must see:

- **Processes** write a heartbeat to a row; one whose row is older than
  ``dead_after`` seconds is dead (killed, frozen or cut off from the database).
- **Upload jobs are a queue.** The upload route spools a job's files into the
  database (:meth:`Coordination.submit`, bounded by ``max_queued_bytes``); any
  live process claims the oldest queued job, or a running one whose process is
  dead. A claim carries a token that every later write of the job must match,
  so a process that lost its claim (it was thought dead) changes nothing any
  more. A job taken over resumes after its last recorded file, and a file stored
  twice is stored once (a document is kept once per content hash), so no job
  completes twice and no document is ingested twice. A job whose process died
  ``max_attempts`` times fails: its files may be what kills the processes.
- **Cancel requests** go to the process that runs the run (a run id starts with
  its process id), which answers whether it had that run.

One implementation (``coordination_sql``) runs on SQLite, for the processes
of one machine (``sqlite_coordination``), and on PostgreSQL, for those of any
number of hosts, which it wakes with LISTEN/NOTIFY instead of polling
(``postgres_coordination``).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal, Protocol

from docuchat.corpus.ingest import IngestedFile, SkippedFile
from docuchat.errors import QueueFull
from docuchat.store.postgres_extra import is_postgres, postgres_extra

PART_BYTES = 1024 * 1024
"""A spooled file is stored in parts of this size, so no side holds a whole upload at once."""
RETRY_AFTER_S = 30
"""What a full queue tells the client to wait (``Retry-After``)."""
PROCESS_ID_LENGTH = 8
"""Hex characters of a process id; a run id starts with its process's."""

FORGET_PROCESS_AFTER_S = 3600.0
"""A dead process's row is kept this long (its jobs are taken over long before)."""
FORGET_REQUEST_AFTER_S = 60.0
"""A cancel request is kept this long, answered or not."""

JobStatus = Literal["queued", "running", "done", "failed"]
"""What a client sees; while its files are being received a job is invisible."""
Signal = Literal["jobs", "cancels"]

JOB_COLUMNS = "id, owner, status, files, done, documents, skipped, error, created_at, updated_at"
OPEN = "status IN ('receiving', 'queued', 'running')"
"""The jobs not yet ended (the condition of the ``upload_jobs_open`` index, word for word)."""


@dataclass(frozen=True, slots=True)
class UploadJob:
    id: str
    owner: str
    status: JobStatus
    files: tuple[str, ...]
    done: int = 0
    documents: tuple[IngestedFile, ...] = ()
    skipped: tuple[SkippedFile, ...] = ()
    error: str | None = None
    created_at: str = ""
    updated_at: str = ""


@dataclass(frozen=True, slots=True)
class ProcessInfo:
    id: str
    host: str
    pid: int
    ingests: bool
    """Whether it takes upload jobs from the queue."""


@dataclass(frozen=True, slots=True)
class SpooledFile:
    """An accepted file on its way into the queue: read from ``file``'s position to its end."""

    name: str
    file: BinaryIO
    size: int


@dataclass(frozen=True, slots=True)
class Claim:
    """A job taken from the queue by one process; ``token`` fences every write it makes."""

    job: UploadJob
    token: str
    attempt: int


@dataclass(frozen=True, slots=True)
class CancelRequest:
    key: int
    run_id: str
    owner: str
    reason: str


@dataclass(frozen=True, slots=True)
class QueueStats:
    queued: int
    running: int
    queued_bytes: int
    processes: int
    """Live processes of the deployment."""
    ingesting: int
    """Live processes that take upload jobs."""


class Signals(Protocol):
    """What may be waiting for one process: new jobs, cancel requests addressed to it."""

    def wait(self, timeout: float) -> set[Signal]:
        """Wait up to ``timeout`` seconds for something; return what (may be empty)."""
        ...

    def close(self) -> None: ...


class Coordination(Protocol):
    dead_after: float
    """Seconds without a heartbeat after which a process is dead."""

    # -- processes -----------------------------------------------------------

    def heartbeat(self, process: ProcessInfo) -> None:
        """Record that ``process`` is alive (and forget long-dead processes)."""
        ...

    def leave(self, process_id: str) -> None:
        """The process stops: it is dead at once, for every purpose."""
        ...

    def is_alive(self, process_id: str) -> bool: ...

    def live_processes(self) -> list[ProcessInfo]: ...

    def signals(self, process_id: str) -> Signals:
        """Something to wait on for ``process_id``'s jobs and cancel requests."""
        ...

    # -- the upload queue ----------------------------------------------------

    def queued_bytes(self) -> int:
        """Bytes of the jobs not yet finished (being received, queued or running)."""
        ...

    def submit(
        self, owner: str, files: Sequence[SpooledFile], *, worker: str, max_queued_bytes: int
    ) -> UploadJob:
        """Spool the files into the database as a queued job.

        ``QueueFull`` if the jobs not yet finished would then hold more than
        ``max_queued_bytes``; nothing is kept if spooling fails.
        """
        ...

    def get_job(self, owner: str, job_id: str) -> UploadJob:
        """One of the owner's jobs; ``NotFound`` for any other id."""
        ...

    def claim(self, worker: str, *, max_attempts: int) -> Claim | None:
        """Take the oldest queued job, or a running one whose process is dead, for ``worker``.

        A dead process's job that has been claimed ``max_attempts`` times fails instead.
        """
        ...

    def read_file(self, claim: Claim, position: int) -> bytes:
        """The bytes of the job's file at ``position`` (in ``job.files``)."""
        ...

    def save(self, claim: Claim, job: UploadJob) -> bool:
        """Record the job's progress, or its end (``done``, ``failed``: its files are dropped).

        False, and nothing changed, if the claim is no longer the job's.
        """
        ...

    def release(self, claim: Claim, job: UploadJob) -> bool:
        """Put a claimed job back in the queue with its progress (the process is stopping)."""
        ...

    def stats(self) -> QueueStats: ...

    # -- cancel requests -----------------------------------------------------

    def request_cancel(self, process_id: str, run_id: str, owner: str, reason: str) -> int:
        """Ask ``process_id`` to cancel the owner's run; return the request's key."""
        ...

    def cancel_requests(self, process_id: str) -> list[CancelRequest]:
        """The requests addressed to ``process_id`` that are not answered yet."""
        ...

    def answer_cancel(self, key: int, cancelled: bool) -> None:
        """Whether the run was there (and is now cancelled)."""
        ...

    def cancel_answer(self, key: int) -> bool | None:
        """The request's answer (the request is then forgotten), or None while unanswered."""
        ...

    def close(self) -> None: ...


def open_coordination(location: str | Path, *, dead_after: float) -> Coordination:
    """The coordination of the processes on the database at a SQLite path or a
    ``postgresql://`` URL (which needs the ``postgres`` extra)."""
    from docuchat.store.coordination_sql import SQLCoordination

    if is_postgres(location):
        with postgres_extra("PostgreSQL needs"):
            from docuchat.store.postgres_coordination import PostgresDialect
        return SQLCoordination(PostgresDialect(str(location), dead_after=dead_after))
    from docuchat.store.sqlite_coordination import SQLiteDialect

    return SQLCoordination(SQLiteDialect(location, dead_after=dead_after))


# -- what every backend does the same way --------------------------------------------------


def upload_job(
    row: Sequence[Any], *, decode: Callable[[Any], Any], timestamp: Callable[[Any], str]
) -> UploadJob:
    """A job from its ``JOB_COLUMNS``; ``decode`` reads the backend's JSON columns (text or
    ``jsonb``), ``timestamp`` its times."""
    job_id, owner, status, files, done, documents, skipped, error, created, updated = row
    return UploadJob(
        job_id,
        owner,
        status,
        tuple(decode(files)),
        done,
        tuple(IngestedFile(**d) for d in decode(documents)),
        tuple(SkippedFile(**s) for s in decode(skipped)),
        error,
        timestamp(created),
        timestamp(updated),
    )


def job_progress(job: UploadJob, *, encode: Callable[[Any], Any]) -> dict[str, Any]:
    """The job's columns that change as it runs, by name; ``encode`` writes the backend's
    JSON columns (text or ``jsonb``)."""
    return {
        "status": job.status,
        "files": encode(list(job.files)),
        "done": job.done,
        "documents": encode([asdict(d) for d in job.documents]),
        "skipped": encode([asdict(s) for s in job.skipped]),
        "error": job.error,
    }


def new_job_id() -> str:
    return secrets.token_hex(8)


def new_process_id() -> str:
    return secrets.token_hex(PROCESS_ID_LENGTH // 2)


def new_token() -> str:
    return secrets.token_hex(8)


def check_room(queued: int, adding: int, limit: int) -> None:
    """``QueueFull`` unless ``adding`` more bytes fit beside the ``queued`` ones."""
    if queued + adding > limit:
        raise QueueFull(
            f"the upload queue holds {queued:,} bytes; {adding:,} more would pass its limit of"
            f" {limit:,}: try again in {RETRY_AFTER_S} seconds",
            retry_after=RETRY_AFTER_S,
        )


def parts(files: Sequence[SpooledFile]) -> Iterator[tuple[int, int, bytes]]:
    """Each file's bytes as ``(file position, part number, data)``, ``PART_BYTES`` at a time."""
    for position, spooled in enumerate(files):
        part = 0
        while data := spooled.file.read(PART_BYTES):
            yield position, part, data
            part += 1


def gave_up(max_attempts: int) -> str:
    """The error of a job whose processes died ``max_attempts`` times while running it."""
    return (
        f"the processes ingesting this upload stopped {max_attempts} times before it was done;"
        " one of its files may be what stops them"
    )


__all__ = [
    "CancelRequest",
    "Claim",
    "Coordination",
    "JobStatus",
    "ProcessInfo",
    "QueueStats",
    "Signal",
    "Signals",
    "SpooledFile",
    "UploadJob",
    "open_coordination",
]
