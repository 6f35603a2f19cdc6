"""The processes' shared state on both backends: liveness, the upload queue, cancel requests.

Every test runs on a real SQLite file and on a real PostgreSQL database. A
"process" here is a process id that heartbeats (or stops heartbeating) on an
open coordination; tests/server/test_workers.py does the same with real
processes.
"""

from __future__ import annotations

import io
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from dataclasses import replace
from typing import Any

import psycopg
import pytest

from docuchat.corpus.ingest import IngestedFile
from docuchat.errors import NotFound, QueueFull, StoreError
from docuchat.store.coordination import (
    PART_BYTES,
    Claim,
    Coordination,
    ProcessInfo,
    SpooledFile,
    open_coordination,
)
from docuchat.store.waiting import WouldWait, never_wait

from .conftest import Backend

DEAD_AFTER = 0.5
LIMIT = 10 * PART_BYTES


@pytest.fixture
def coordination(backend: Backend) -> Iterator[Coordination]:
    opened = open_coordination(backend.location, dead_after=DEAD_AFTER)
    yield opened
    opened.close()


def alive(coordination: Coordination, name: str, *, ingests: bool = True) -> str:
    coordination.heartbeat(ProcessInfo(name, "host", 1, ingests))
    return name


def spooled(name: str, data: bytes) -> SpooledFile:
    return SpooledFile(name, io.BytesIO(data), len(data))


def submit(coordination: Coordination, owner: str = "alice", **files: bytes) -> str:
    job = coordination.submit(
        owner,
        [spooled(name.replace("_", "."), data) for name, data in files.items()],
        worker=alive(coordination, "sender"),
        max_queued_bytes=LIMIT,
    )
    return job.id


def rows(backend: Backend, query: str) -> list[tuple[Any, ...]]:
    if backend.name == "sqlite":
        with closing(sqlite3.connect(backend.location)) as db:
            return db.execute(query).fetchall()
    with psycopg.connect(backend.location) as conn:
        return conn.execute(query).fetchall()


def test_a_spooled_job_is_claimed_once_and_its_files_read_back(
    coordination: Coordination, backend: Backend
) -> None:
    big = bytes(range(256)) * (PART_BYTES * 5 // 2 // 256)  # three parts
    job_id = submit(coordination, a_md=b"# A\n\nalpha", b_pdf=big)
    queued = coordination.get_job("alice", job_id)
    assert (queued.status, queued.files, queued.done) == ("queued", ("a.md", "b.pdf"), 0)
    with pytest.raises(NotFound):
        coordination.get_job("bob", job_id)

    claim = coordination.claim(alive(coordination, "w1"), max_attempts=3)
    assert claim is not None and (claim.job.id, claim.attempt) == (job_id, 1)
    assert coordination.claim(alive(coordination, "w2"), max_attempts=3) is None
    assert coordination.get_job("alice", job_id).status == "running"
    assert coordination.read_file(claim, 0) == b"# A\n\nalpha"
    assert coordination.read_file(claim, 1) == big
    assert rows(backend, "SELECT count(*) FROM upload_parts") == [(4,)]

    added = IngestedFile("a.md", "added", "doc1", "A", 1, 1)
    progress = replace(claim.job, done=1, documents=(added,))
    assert coordination.save(claim, progress)
    assert coordination.get_job("alice", job_id).documents == (added,)
    assert coordination.save(claim, replace(progress, status="done", done=2))
    assert coordination.get_job("alice", job_id).status == "done"
    assert rows(backend, "SELECT count(*) FROM upload_parts") == [(0,)]  # the spool is gone
    assert coordination.claim("w1", max_attempts=3) is None
    assert coordination.queued_bytes() == 0


def test_a_dead_process_job_is_taken_over_where_it_stopped(coordination: Coordination) -> None:
    job_id = submit(coordination, a_md=b"a", b_md=b"b", c_md=b"c")
    first = coordination.claim(alive(coordination, "w1"), max_attempts=3)
    assert first is not None
    assert coordination.save(first, replace(first.job, done=1))
    alive(coordination, "w2")
    assert coordination.claim("w2", max_attempts=3) is None  # w1 is alive: its job is its own

    time.sleep(DEAD_AFTER + 0.1)  # w1 stops beating
    second = coordination.claim(alive(coordination, "w2"), max_attempts=3)
    assert second is not None
    assert (second.job.id, second.job.done, second.attempt) == (job_id, 1, 2)
    # w1 comes back: its claim is no longer the job's, and nothing it writes is kept.
    alive(coordination, "w1")
    assert not coordination.save(first, replace(first.job, done=3, status="done"))
    assert not coordination.release(first, first.job)
    assert coordination.get_job("alice", job_id).done == 1
    assert coordination.save(second, replace(second.job, done=3, status="done"))
    assert coordination.get_job("alice", job_id).status == "done"


def test_a_job_whose_processes_keep_dying_fails(
    coordination: Coordination, backend: Backend
) -> None:
    job_id = submit(coordination, bomb_pdf=b"%PDF-1.7 ...")
    for worker in ("w1", "w2"):
        assert coordination.claim(alive(coordination, worker), max_attempts=2) is not None
        time.sleep(DEAD_AFTER + 0.1)
    assert coordination.claim(alive(coordination, "w3"), max_attempts=2) is None
    job = coordination.get_job("alice", job_id)
    assert job.status == "failed"
    assert job.error is not None and "stopped 2 times" in job.error
    assert rows(backend, "SELECT count(*) FROM upload_parts") == [(0,)]


def test_a_released_job_goes_back_to_the_queue_with_its_progress(
    coordination: Coordination,
) -> None:
    job_id = submit(coordination, a_md=b"a", b_md=b"b")
    claim = coordination.claim(alive(coordination, "w1"), max_attempts=1)
    assert claim is not None
    assert coordination.release(claim, replace(claim.job, done=1))
    assert coordination.get_job("alice", job_id).status == "queued"
    again = coordination.claim(alive(coordination, "w2"), max_attempts=1)
    assert again is not None and (again.job.done, again.attempt) == (1, 1)  # not a crash


def test_the_queue_refuses_an_upload_that_would_pass_its_limit(
    coordination: Coordination,
) -> None:
    worker = alive(coordination, "w1")
    first = coordination.submit(
        "alice", [spooled("a.md", b"x" * 60)], worker=worker, max_queued_bytes=100
    )
    assert coordination.queued_bytes() == 60
    with pytest.raises(QueueFull) as refused:
        coordination.submit(
            "bob", [spooled("b.md", b"y" * 60)], worker=worker, max_queued_bytes=100
        )
    assert refused.value.retry_after > 0
    assert coordination.stats().queued == 1  # the refused upload left nothing

    claim = coordination.claim(worker, max_attempts=3)
    assert claim is not None and claim.job.id == first.id
    assert coordination.save(claim, replace(claim.job, status="done", done=1))
    coordination.submit("bob", [spooled("b.md", b"y" * 60)], worker=worker, max_queued_bytes=100)


class InterruptedFile(io.BytesIO):
    """Two parts; runs ``meanwhile`` before the second, then fails (``fail``) or goes on."""

    def __init__(self, meanwhile: Any, *, fail: bool) -> None:
        super().__init__(b"z" * (PART_BYTES + 10))
        self.meanwhile = meanwhile
        self.fail = fail

    def read(self, size: int | None = -1, /) -> bytes:
        if self.tell() == PART_BYTES:
            self.meanwhile()
            if self.fail:
                raise OSError("the client went away")
        return super().read(size)


def test_an_upload_that_fails_while_spooling_leaves_nothing(
    coordination: Coordination, backend: Backend
) -> None:
    seen: list[Any] = []

    def look() -> None:
        # While it is received, the job is in no count a client sees and cannot be claimed.
        seen.append(coordination.stats().queued)
        seen.append(coordination.claim(alive(coordination, "w1"), max_attempts=3))

    with pytest.raises(OSError, match="went away"):
        coordination.submit(
            "alice",
            [SpooledFile("big.pdf", InterruptedFile(look, fail=True), PART_BYTES + 10)],
            worker=alive(coordination, "sender"),
            max_queued_bytes=LIMIT,
        )
    assert seen == [0, None]
    assert rows(backend, "SELECT count(*) FROM upload_jobs") == [(0,)]
    assert rows(backend, "SELECT count(*) FROM upload_parts") == [(0,)]


def test_an_upload_whose_process_died_while_receiving_it_is_dropped(
    coordination: Coordination, backend: Backend
) -> None:
    """A claim sweeps away what a dead process was receiving (its reserved bytes too)."""

    def sweep() -> None:
        time.sleep(DEAD_AFTER + 0.1)  # the receiving process is dead by now
        assert coordination.claim(alive(coordination, "w1"), max_attempts=3) is None

    with pytest.raises(StoreError):  # its next part has no job to go to
        coordination.submit(
            "alice",
            [SpooledFile("big.pdf", InterruptedFile(sweep, fail=False), PART_BYTES + 10)],
            worker="never-beat",
            max_queued_bytes=LIMIT,
        )
    assert rows(backend, "SELECT count(*) FROM upload_jobs") == [(0,)]
    assert coordination.queued_bytes() == 0


def test_processes_claiming_at_once_each_get_another_job(coordination: Coordination) -> None:
    jobs = {submit(coordination, **{f"f{i}_md": f"file {i}".encode()}) for i in range(12)}
    claimed: list[Claim] = []
    lock = threading.Lock()

    def claim_all(worker: str) -> None:
        alive(coordination, worker)
        while (claim := coordination.claim(worker, max_attempts=3)) is not None:
            with lock:
                claimed.append(claim)

    threads = [threading.Thread(target=claim_all, args=(f"w{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(c.job.id for c in claimed) == sorted(jobs)


def test_liveness_follows_heartbeats(coordination: Coordination) -> None:
    alive(coordination, "server")
    alive(coordination, "api-only", ingests=False)
    assert coordination.is_alive("server")
    assert [p.id for p in coordination.live_processes()] == ["api-only", "server"]
    stats = coordination.stats()
    assert (stats.processes, stats.ingesting) == (2, 1)
    coordination.leave("server")
    assert not coordination.is_alive("server")
    time.sleep(DEAD_AFTER + 0.1)
    assert not coordination.is_alive("api-only")
    assert coordination.stats().processes == 0


def test_a_cancel_request_reaches_its_process_and_its_answer_comes_back(
    coordination: Coordination,
) -> None:
    key = coordination.request_cancel("p1", "p1run0001", "alice", "cancelled by the user")
    assert coordination.cancel_requests("p2") == []
    [request] = coordination.cancel_requests("p1")
    assert (request.key, request.run_id, request.owner) == (key, "p1run0001", "alice")
    assert coordination.cancel_answer(key) is None  # not answered yet
    coordination.answer_cancel(key, True)
    assert coordination.cancel_requests("p1") == []
    assert coordination.cancel_answer(key) is True
    assert coordination.cancel_answer(key) is None  # read once, then forgotten


def test_signals_wake_a_process_for_new_jobs_and_for_its_cancel_requests(
    coordination: Coordination,
) -> None:
    signals = coordination.signals("p1")
    try:
        assert signals.wait(0.05) == set()
        submit(coordination, a_md=b"a")
        assert signals.wait(5) == {"jobs"}
        assert signals.wait(0.05) == set()  # told once
        coordination.request_cancel("p2", "p2run0001", "alice", "why not")
        assert signals.wait(0.3) == set()  # for another process
        started = time.monotonic()
        coordination.request_cancel("p1", "p1run0001", "alice", "why not")
        assert signals.wait(5) == {"cancels"}
        assert time.monotonic() - started < 1
    finally:
        signals.close()


def test_no_postgres_coordination_call_runs_under_never_wait(postgres: Backend) -> None:
    coordination = open_coordination(postgres.location, dead_after=DEAD_AFTER)
    try:
        calls = [
            lambda: coordination.heartbeat(ProcessInfo("p1", "host", 1, True)),
            lambda: coordination.is_alive("p1"),
            coordination.queued_bytes,
            coordination.stats,
            lambda: coordination.claim("p1", max_attempts=3),
            lambda: coordination.request_cancel("p1", "run", "alice", "why"),
            lambda: coordination.cancel_answer(1),
        ]
        with never_wait():
            for call in calls:
                with pytest.raises(WouldWait):
                    call()
    finally:
        coordination.close()
