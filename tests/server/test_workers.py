"""Several server processes on one database serve as one: real processes, real databases.

Each test starts ``docuchat serve`` processes of its own (beating every 0.2 s,
so a process is dead 1 s after its last beat), on a PostgreSQL database of the
session's server or on one SQLite file (``--workers 2``), and shows what one
process does reaching the others: a cancel, a killed process's upload job,
the caches of documents another process wrote.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from docuchat.corpus.ingest import embed_pending, ingest_file
from docuchat.embeddings import get_embedder
from docuchat.search import HybridSearcher
from docuchat.store import open_store
from docuchat.store.accounts import open_accounts
from docuchat.store.postgres import _OWNER_LOCKS
from model_servers import ModelServer

from .conftest import Keys, auth
from .test_cancellation import QUESTION, read_events

FILES = {
    "falcon.md": b"# Project Falcon\n\nThe launch date of Project Falcon is 9 September.",
    "heron.md": b"# Project Heron\n\nProject Heron needs three engineers.",
    "plover.txt": b"Plover notes\n\nThe plover budget is 40,000 pounds.",
}


DOCUCHAT = [sys.executable, "-c", "from docuchat.cli.main import main; main()"]


class Served:
    """``docuchat serve`` in a process of its own on a free port of 127.0.0.1."""

    def __init__(self, env: dict[str, str], *options: str) -> None:
        command = [*DOCUCHAT, "serve", "--port", "0", "--no-access-log", "--embedder", "none"]
        command += options
        self.process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env)
        self.log: list[str] = []
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.log.append(line)
            if found := re.search(r"running on (http://127\.0\.0\.1:\d+)", line):
                self.url = found.group(1)
                break
        else:
            raise AssertionError("the server did not start:\n" + "".join(self.log))
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.process.stderr is not None
        self.log.extend(self.process.stderr)

    def health(self, client: httpx.Client | None = None) -> dict[str, Any]:
        """``/health`` once it answers (a new process needs a moment)."""
        for _ in range(300):
            try:
                response = (client or httpx).get(f"{self.url}/health")
                found: dict[str, Any] = response.json()
                return found
            except httpx.TransportError:
                time.sleep(0.05)
        raise AssertionError("no answer from /health:\n" + "".join(self.log))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Callable[..., Served]]:
    """Starts servers (``start(env_overrides, *options)``); stops them after the test."""
    started: list[Served] = []
    base = {**os.environ, "PYTHONUNBUFFERED": "1", "DOCUCHAT_HOME": str(tmp_path)}
    base["DOCUCHAT_HEARTBEAT_SECONDS"] = "0.2"

    def start_one(env: dict[str, str] | None = None, *options: str) -> Served:
        served = Served({**base, **(env or {})}, *options)
        started.append(served)
        return served

    yield start_one
    for served in started:
        served.stop()


def add_users(db: str) -> Keys:
    accounts = open_accounts(db)
    try:
        return Keys(alice=accounts.add_user("alice")[1], bob=accounts.add_user("bob")[1])
    finally:
        accounts.close()


def wait_for(predicate: Callable[[], Any], what: str, timeout: float = 20) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if found := predicate():
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def cancel_through_another_process(
    asker: httpx.Client, canceller: httpx.Client, keys: Keys, hanging_model: ModelServer
) -> None:
    """Alice asks through ``asker``'s process and cancels through ``canceller``'s (another):
    the stream ends ``cancelled`` and the model request is aborted; bob's, unknown and
    finished runs are 404 there as anywhere."""
    assert asker.get("/health").json()["pid"] != canceller.get("/health").json()["pid"]
    with asker.stream("POST", "/api/ask", headers=auth(keys.alice), json=QUESTION) as streamed:
        events = read_events(streamed)
        run = next(events)
        assert hanging_model.request_arrived.wait(10)
        cancel = f"/api/runs/{run['run_id']}/cancel"
        assert canceller.post(cancel, headers=auth(keys.bob)).status_code == 404
        unknown = f"/api/runs/{run['run_id'][:8]}00000000/cancel"
        assert canceller.post(unknown, headers=auth(keys.alice)).status_code == 404
        assert not hanging_model.client_gone.is_set()

        started = time.monotonic()
        response = canceller.post(cancel, headers=auth(keys.alice))
        assert (response.status_code, response.json()) == (202, {"cancelled": True})
        final, done = list(events)[-2:]
        assert time.monotonic() - started < 2
        assert (final["outcome"], done) == ("cancelled", "[DONE]")
    assert hanging_model.client_gone.wait(5), "the model request was not aborted"
    assert canceller.post(cancel, headers=auth(keys.alice)).status_code == 404  # it is over


def test_a_run_started_on_one_process_is_cancelled_through_another(
    start: Callable[..., Served], postgres_url: str, hanging_model: ModelServer
) -> None:
    keys = add_users(postgres_url)
    env = {"DOCUCHAT_DB": postgres_url, "OPENAI_BASE_URL": hanging_model.url}
    first, second = start(env, "--model", "openai:slow"), start(env, "--model", "openai:slow")
    assert second.health()["processes"] == 2
    with (
        httpx.Client(base_url=first.url, timeout=10) as asker,
        httpx.Client(base_url=second.url, timeout=10) as canceller,
    ):
        cancel_through_another_process(asker, canceller, keys, hanging_model)


def test_workers_on_one_sqlite_file_cancel_each_others_runs(
    start: Callable[..., Served], tmp_path: Path, hanging_model: ModelServer
) -> None:
    """``--workers 2`` on SQLite: the processes share the port, cancel requests are polled."""
    keys = add_users(str(tmp_path / "docuchat.db"))
    env = {"OPENAI_BASE_URL": hanging_model.url}
    served = start(env, "--model", "openai:slow", "--workers", "2")
    # A keep-alive client keeps its one connection, so talks to one process: find one each.
    by_pid: dict[int, httpx.Client] = {}
    clients = []
    try:
        for _ in range(200):
            client = httpx.Client(base_url=served.url, timeout=10)
            clients.append(client)
            by_pid.setdefault(served.health(client)["pid"], client)
            if len(by_pid) == 2:
                break
        assert len(by_pid) == 2, "every connection went to the same process"
        asker, canceller = by_pid.values()
        cancel_through_another_process(asker, canceller, keys, hanging_model)
    finally:
        for client in clients:
            client.close()


def test_a_killed_process_upload_job_finishes_on_another_and_nothing_is_stored_twice(
    start: Callable[..., Served], postgres_url: str
) -> None:
    keys = add_users(postgres_url)
    env = {"DOCUCHAT_DB": postgres_url}
    servers = [start(env), start(env)]
    processes = {s.health()["process"]: s for s in servers}
    # Alice's documents wait for this lock, so whichever process takes the job holds it
    # while it waits to store the first file.
    with psycopg.connect(postgres_url, autocommit=True) as lock:
        lock.execute("SELECT pg_advisory_lock(%s, hashtext('alice'))", (_OWNER_LOCKS,))
        parts = [("files", (name, data)) for name, data in FILES.items()]
        accepted = httpx.post(
            f"{servers[0].url}/api/documents", headers=auth(keys.alice), files=parts
        )
        assert accepted.status_code == 202, accepted.text
        job_id = accepted.json()["job_id"]

        def holder() -> str | None:
            with psycopg.connect(postgres_url) as conn:
                row = conn.execute(
                    "SELECT worker FROM upload_jobs WHERE id = %s AND status = 'running'",
                    (job_id,),
                ).fetchone()
            return None if row is None else str(row[0])

        killed = processes[wait_for(holder, "a process to take the job")]
        os.kill(killed.process.pid, signal.SIGKILL)
        killed.process.wait(5)
        lock.execute("SELECT pg_advisory_unlock(%s, hashtext('alice'))", (_OWNER_LOCKS,))

    survivor = next(s for s in servers if s is not killed)

    def finished() -> dict[str, Any] | None:
        job: dict[str, Any] = httpx.get(
            f"{survivor.url}/api/jobs/{job_id}", headers=auth(keys.alice)
        ).json()
        return job if job["status"] in ("done", "failed") else None

    job = wait_for(finished, "the job to finish on the survivor")
    assert job["status"] == "done", job
    assert [(d["title"], d["status"]) for d in job["documents"]] == [
        ("Project Falcon", "added"),
        ("Project Heron", "added"),
        ("plover", "added"),
    ]
    with psycopg.connect(postgres_url) as conn:
        assert (
            conn.execute("SELECT attempts FROM upload_jobs WHERE id = %s", (job_id,)).fetchone()[0]
            == 2
        )
        assert conn.execute("SELECT count(*) FROM upload_parts").fetchone()[0] == 0

    # The same files again, through the survivor: stored once, whatever process stores them.
    again = httpx.post(
        f"{survivor.url}/api/documents",
        headers=auth(keys.alice),
        files=[("files", (name, data)) for name, data in FILES.items()],
    ).json()["job_id"]
    job_id = again
    job = wait_for(finished, "the second job")
    assert {d["status"] for d in job["documents"]} == {"unchanged"}
    store = open_store(postgres_url)
    try:
        assert sorted(d.source or "" for d in store.list_documents("alice")) == sorted(FILES)
    finally:
        store.close()


def test_a_worker_process_ingests_what_the_servers_accept(
    start: Callable[..., Served], tmp_path: Path
) -> None:
    """``serve --ingest-threads 0`` only queues; ``docuchat worker`` (SQLite here) ingests."""
    db = str(tmp_path / "docuchat.db")
    keys = add_users(db)
    served = start(None, "--ingest-threads", "0")
    health = served.health()
    assert (health["queue"]["ingests_here"], health["queue"]["ingesting_processes"]) == (False, 0)
    accepted = httpx.post(
        f"{served.url}/api/documents",
        headers=auth(keys.alice),
        files=[("files", ("falcon.md", FILES["falcon.md"]))],
    ).json()
    assert served.health()["queue"]["queued"] == 1  # waiting: no process ingests

    worker = subprocess.Popen(
        [*DOCUCHAT, "worker", "--db", db, "--embedder", "none"],
        env={**os.environ, "DOCUCHAT_HEARTBEAT_SECONDS": "0.2"},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:

        def done() -> bool:
            job = httpx.get(
                f"{served.url}/api/jobs/{accepted['job_id']}", headers=auth(keys.alice)
            ).json()
            return job["status"] == "done"

        wait_for(done, "the worker to ingest the upload")
        assert served.health()["queue"]["ingesting_processes"] == 1
    finally:
        worker.send_signal(signal.SIGTERM)
        _, errors = worker.communicate(timeout=15)
    assert worker.returncode == 0, errors
    assert "SIGTERM, stopping" in errors
    assert wait_for(lambda: served.health()["processes"] == 1, "the worker to leave")


def test_in_memory_indexes_follow_what_another_process_writes(tmp_path: Path) -> None:
    """The SQLite store's BM25 index and vector matrix are cached per owner; a write by
    another process (``docuchat ingest``, ``docuchat docs remove``) is seen by the next search.
    """
    db = tmp_path / "docuchat.db"
    (tmp_path / "heron.md").write_bytes(FILES["heron.md"])
    (tmp_path / "falcon.md").write_bytes(FILES["falcon.md"])

    def docuchat(*args: str) -> None:
        """Another process writes."""
        env = {**os.environ, "DOCUCHAT_HOME": str(tmp_path)}
        subprocess.run([*DOCUCHAT, *args], capture_output=True, env=env, check=True)

    store = open_store(db)
    searcher = HybridSearcher(store, get_embedder("hash:64"))
    try:
        ingest_file(store, "alice", tmp_path / "heron.md")  # this process writes first
        embed_pending(store, "alice", get_embedder("hash:64"))
        for mode in ("bm25", "dense"):  # both caches warm, and without Falcon
            hits = searcher.search("alice", "launch date Falcon", k=5, mode=mode)
            assert {h.title for h in hits} <= {"Project Heron"}
        assert store.bm25_is_warm("alice")

        docuchat("ingest", "--db", str(db), "--owner", "alice", "--embedder", "hash:64",
                 str(tmp_path / "falcon.md"))  # fmt: skip
        for mode in ("bm25", "dense"):
            [best, *_] = searcher.search("alice", "launch date Falcon", k=5, mode=mode)
            assert best.title == "Project Falcon"

        falcon = next(d.id for d in store.list_documents("alice") if d.title == "Project Falcon")
        docuchat("docs", "remove", falcon, "--db", str(db), "--owner", "alice")
        for mode in ("bm25", "dense"):
            hits = searcher.search("alice", "launch date Falcon", k=5, mode=mode)
            assert falcon not in {h.doc_id for h in hits}
    finally:
        store.close()
