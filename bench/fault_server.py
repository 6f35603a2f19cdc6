"""Fault run: kill -9 one server process during a load run and a batch of uploads.

``docuchat serve --workers W`` (default 2, default heartbeat: a process is dead
10 s after its last beat) carries N clients as in ``load_server.py``; at
``--kill-at`` minus 2 s a batch of uploads starts arriving, and once a process
holds a running upload job (or 10 s later) that process (or any) is killed
with SIGKILL. uvicorn starts a new process in its place.

Reported: conversations lost, and how many of them went to the killed process
(each client asks ``/health`` which process took its connection) or were in
flight at the kill; jobs finished (all of them must be) and whether the killed
process's job was taken over; documents stored twice (none may be); and how
the survivors carried the load: the lowest rate of answers in a 500 ms window
after the kill and when it was back to 90% of the rate before, and when
questions were again answered within 1.25 times the usual time (the median of
the questions asked in a 1 s window).

    python bench/fault_server.py                      # N = 200, 2 workers, SQLite
    python bench/fault_server.py --db pgserver        # on PostgreSQL
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sqlite3
import threading
import time
from contextlib import closing
from statistics import median
from typing import Any

import httpx
import uvloop

from load_server import (
    LATENCY,
    MODEL_CALLS,
    Conversation,
    Setup,
    _auth,
    family,
    served,
    start_clients,
)

BIN_S = 0.5
HOLD_WAIT_S = 10.0
RECOVERED = 0.9
SETTLED = 1.25


def upload_batch(base: str, key: str, uploads: int, files: int) -> tuple[list[str], int]:
    """``uploads`` uploads at once of ``files`` text files each (about 2 MB a file), each on a
    connection of its own; one cut off (its process killed) is sent again. The job ids, and
    how many were sent again."""
    jobs: list[str] = []
    resent = 0

    def send(u: int) -> None:
        nonlocal resent
        parts = []
        for f in range(files):
            line = f"Upload {u} file {f} line {{}}: the plants are watered on Mondays.\n"
            text = "".join(line.format(i) for i in range(30_000))
            parts.append(("files", (f"batch-{u}-{f}.txt", text.encode())))
        while True:
            try:
                with httpx.Client(base_url=base, timeout=120) as client:
                    response = client.post("/api/documents", headers=_auth(key), files=parts)
                response.raise_for_status()
                jobs.append(response.json()["job_id"])
                return
            except httpx.TransportError:
                resent += 1

    senders = [threading.Thread(target=send, args=(u,)) for u in range(uploads)]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join()
    return jobs, resent


def database_rows(db: str, query: str) -> list[tuple[Any, ...]]:
    if db.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(db) as conn:
            return conn.execute(query).fetchall()
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute(query).fetchall()


def victim(setup: Setup) -> tuple[int, bool]:
    """A serving process to kill: one holding a running upload job if any; whether it does."""
    serving = set(family(setup.server_pid)[1:])
    processes = database_rows(
        setup.db,
        "SELECT p.pid, EXISTS (SELECT 1 FROM upload_jobs j WHERE j.worker = p.id"
        " AND j.status = 'running') FROM processes p ORDER BY 2 DESC",
    )
    pid, holds = next((pid, bool(holds)) for pid, holds in processes if pid in serving)
    return pid, holds


async def fault_run(
    setup: Setup, n: int, duration: float, kill_at: float, uploads: int, files: int
) -> dict[str, Any]:
    ramp = MODEL_CALLS * LATENCY
    began = time.perf_counter()
    stop = began + ramp + duration
    clients = start_clients(setup.base, setup.keys, n, ramp, stop)
    await asyncio.sleep(ramp + kill_at - 2)
    batch: list[tuple[list[str], int]] = []
    sender = threading.Thread(
        target=lambda: batch.append(upload_batch(setup.base, setup.keys[0], uploads, files))
    )
    sender.start()
    await asyncio.sleep(2)
    deadline = time.perf_counter() + HOLD_WAIT_S
    killed, held_job = victim(setup)
    while not held_job and time.perf_counter() < deadline:  # the uploads are still arriving
        await asyncio.sleep(0.1)
        killed, held_job = victim(setup)
    os.kill(killed, signal.SIGKILL)
    killed_at = time.perf_counter()
    await clients
    conversations = [c for per_client in clients.result() for c in per_client]
    sender.join()
    [(jobs, resent)] = batch
    job_states = await asyncio.to_thread(wait_for_jobs, setup, jobs)
    return report(conversations, began + ramp, (killed, killed_at), stop) | {
        "killed process held a job": held_job,
        "uploads cut off by the kill and sent again": resent,
        "jobs": len(jobs),
        "jobs done": sum(1 for state in job_states if state["status"] == "done"),
        "jobs taken over": database_rows(
            setup.db, "SELECT count(*) FROM upload_jobs WHERE attempts > 1"
        )[0][0],
        "documents stored twice": database_rows(
            setup.db,
            "SELECT count(*) FROM (SELECT owner, content_hash FROM documents"
            " GROUP BY owner, content_hash HAVING count(*) > 1) twice",
        )[0][0],
        "last job done after the kill s": round(
            max(state["done_at"] for state in job_states) - killed_at, 1
        ),
    }


def wait_for_jobs(setup: Setup, jobs: list[str]) -> list[dict[str, Any]]:
    states: dict[str, dict[str, Any]] = {}
    with httpx.Client(base_url=setup.base, timeout=30) as client:
        while len(states) < len(jobs):
            for job_id in jobs:
                if job_id in states:
                    continue
                job = client.get(f"/api/jobs/{job_id}", headers=_auth(setup.keys[0])).json()
                if job["status"] in ("done", "failed"):
                    states[job_id] = {**job, "done_at": time.perf_counter()}
            time.sleep(0.2)
    return list(states.values())


def report(
    conversations: list[Conversation], start: float, killed: tuple[int, float], stop: float
) -> dict[str, Any]:
    pid, killed_at = killed
    failed = [c for c in conversations if c.error or c.answer is None]
    answered = [c for c in conversations if c.answer is not None and not c.error]
    ends = sorted(c.started + (c.answer or 0) for c in answered)
    before = sum(1 for end in ends if start <= end < killed_at) / (killed_at - start)
    rates = [
        (t, sum(1 for end in ends if t <= end < t + BIN_S) / BIN_S)
        for t in _steps(killed_at, stop - BIN_S, BIN_S)
    ]
    low_at, low = min(rates, key=lambda rate: rate[1])
    back = next((t + BIN_S for t, rate in rates if t > low_at and rate >= RECOVERED * before), None)
    usual = median(c.answer or 0 for c in answered if killed_at - 2 <= c.started < killed_at)
    settled = next(
        (
            t
            for t in _steps(killed_at, stop - 1, BIN_S)
            if (batch := [c for c in conversations if t <= c.started < t + 1])
            and not any(c.error or c.answer is None for c in batch)
            and median(c.answer or 0 for c in batch) <= SETTLED * usual
        ),
        None,
    )
    elsewhere = [c for c in failed if c.pid not in (pid, None)]
    if elsewhere:
        example = elsewhere[0]
        print(f"lost elsewhere, e.g. on {example.pid}: {example.error}", flush=True)
    return {
        "conversations": len(conversations),
        "answered": len(answered),
        "lost": len(failed),
        "lost on the killed process": sum(1 for c in failed if c.pid == pid),
        "lost, in flight at the kill": sum(1 for c in failed if c.started <= killed_at),
        "lost connecting (no process answered)": sum(1 for c in failed if c.pid is None),
        "lost on another process": len(elsewhere),
        "crossed": sum(1 for c in answered if c.crossed),
        "answers /s before the kill": round(before, 1),
        f"lowest {BIN_S} s after the kill, of that": f"{low / before:.0%}",
        f"back to {RECOVERED:.0%} of it after s": _seconds(back, killed_at),
        "answer p50 before the kill s": round(usual, 2),
        f"questions answered within {SETTLED}x that p50 again after s": _seconds(
            settled, killed_at
        ),
    }


def _steps(start: float, stop: float, step: float) -> list[float]:
    return [start + i * step for i in range(max(0, int((stop - start) / step) + 1))]


def _seconds(at: float | None, since: float) -> float | str:
    return "not in the run" if at is None else round(at - since, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--kill-at", type=float, default=5.0, help="seconds into steady state")
    parser.add_argument("--uploads", type=int, default=6)
    parser.add_argument("--files", type=int, default=3, help="files per upload (2 MB each)")
    parser.add_argument(
        "--db", help="a postgresql:// URL, or pgserver for a server of its own (default: SQLite)"
    )
    args = parser.parse_args()
    with served(args.workers, LATENCY, db=args.db) as setup:
        result = uvloop.run(
            fault_run(setup, args.n, args.duration, args.kill_at, args.uploads, args.files)
        )
    result["load avg"] = round(os.getloadavg()[0], 1)
    width = max(map(len, result))
    for name, value in result.items():
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
