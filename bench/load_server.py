"""Load benchmark: N concurrent conversations against ``docuchat serve`` (1 or more processes).

A mock OpenAI-compatible server (its own process, ``LATENCY`` seconds per
call) stands in for the LLM. It drives the research agent through real tool
calls: search for the question, open the top passage, answer quoting it with
the conversation's marker, so every conversation makes exactly three model
calls and two tool calls. Each of N clients asks question after question (a
new conversation each time) over ``POST /api/ask`` with streaming, for
``--duration`` seconds.

Clients start spread over one ideal conversation (``--ramp``, default
3 x LATENCY), as users arrive; ``--ramp 0`` starts them all in the same
millisecond, a thundering herd that then moves in lockstep. Figures cover the
steady state: conversations that start after the ramp, and for throughput
those that end before the clients stop.

``--workers 1 2 3`` runs the same load against ``docuchat serve --workers W``
for each W (the processes share the port; each client's keep-alive connection
stays with the process that accepted it).

Measured: conversations per second against the ideal (N per 3 x LATENCY),
time to the first streamed event and to the final event (p50, p99), the
server's peak memory, CPU time (all its processes) and garbage-collector
pauses, how busy the whole machine was, errors, and lost or crossed answers
(each answer must carry its own conversation's marker and its user's secret).

    python bench/load_server.py                  # N = 50, 200, 500
    python bench/load_server.py --workers 1 2 3 --n 200 500 1000
    python bench/load_server.py --n 200 --ramp 0 --profile server.prof
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import uvloop

from gc_pauses import pauses

LATENCY = 0.2
MODEL_CALLS = 3
USERS = 20
BENCH = str(Path(__file__).parent)

# -- the mock model ---------------------------------------------------------------------------


def reply_for(body: dict[str, Any]) -> dict[str, Any]:
    """The next step for this conversation: search, open the top hit, answer with the marker."""
    messages = body["messages"]
    asked = max(i for i, m in enumerate(messages) if m["role"] == "user")
    question = messages[asked]["content"]
    results = [m for m in messages[asked:] if m["role"] == "tool"]
    if not results:
        return _tool_call("search_docs", {"query": question})
    found = json.loads(results[-1]["content"])
    if found.get("hits"):
        hit = found["hits"][0]
        return _tool_call("open_citation", {"docId": hit["docId"], "chunkId": hit["chunkId"]})
    marker = re.search(r"\(conversation (\S+)\)", question)
    lines = found.get("text", "").splitlines()
    line = next((x for x in lines if "secret code" in x), "The documents do not say.")
    return {"content": f"{line} [1] Conversation {marker.group(1) if marker else '?'}."}


def _tool_call(name: str, arguments: dict[str, str]) -> dict[str, Any]:
    call_id = f"call_{os.urandom(6).hex()}"
    function = {"name": name, "arguments": json.dumps(arguments)}
    return {"tool_calls": [{"index": 0, "id": call_id, "type": "function", "function": function}]}


def _sse_body(delta: dict[str, Any]) -> bytes:
    finish = "tool_calls" if "tool_calls" in delta else "stop"
    chunks: list[dict[str, Any]] = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", **delta}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
        {"choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 20}},
    ]
    events = [f"data: {json.dumps({'model': 'mock', **c})}\n\n" for c in chunks]
    return ("".join(events) + "data: [DONE]\n\n").encode()


def _json_body(delta: dict[str, Any]) -> bytes:
    message = {"role": "assistant", "content": delta.get("content"), **delta}
    finish = "tool_calls" if "tool_calls" in delta else "stop"
    completion = {
        "model": "mock",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20},
    }
    return json.dumps(completion).encode()


class MockModelProtocol(asyncio.Protocol):
    """A minimal HTTP/1.1 keep-alive server: every POST is answered after ``latency``."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.buffer = b""
        self.transport: Any = None  # uvloop's transports are not asyncio.Transport subclasses

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            head = self.buffer[:end].decode("latin-1")
            length = re.search(r"(?im)^content-length:\s*(\d+)", head)
            size = int(length.group(1)) if length else 0
            if len(self.buffer) < end + 4 + size:
                return
            body = self.buffer[end + 4 : end + 4 + size]
            self.buffer = self.buffer[end + 4 + size :]
            if not head.startswith("POST "):  # a probe (GET /models, /props...): not found
                self.transport.write(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
                continue
            asyncio.get_running_loop().create_task(self.answer(json.loads(body)))

    async def answer(self, body: dict[str, Any]) -> None:
        await asyncio.sleep(self.latency)
        delta = reply_for(body)
        streamed = body.get("stream", False)
        payload = _sse_body(delta) if streamed else _json_body(delta)
        kind = "text/event-stream" if streamed else "application/json"
        head = f"HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {len(payload)}\r\n\r\n"
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(head.encode() + payload)


async def serve_mock(latency: float) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: MockModelProtocol(latency), "127.0.0.1", 0, backlog=4096
    )
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


# -- processes ------------------------------------------------------------------------------


@contextmanager
def process(
    command: list[str], env: dict[str, str], ready: str
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """Start a process and wait for a line matching ``ready`` on its output; yield the match.

    The rest of its output goes on to our stderr: a pipe nobody reads fills (64 KiB) and
    then stops the process at its next write (the mock, logging a traceback for each
    probe it could not parse, once froze that way and every question timed out).
    """
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            if found := re.search(ready, line):
                threading.Thread(
                    target=shutil.copyfileobj, args=(proc.stdout, sys.stderr), daemon=True
                ).start()
                yield proc, found.group(1)
                break
        else:
            raise RuntimeError(f"{command[:3]} did not start")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status")
    if not status.exists():
        return 0.0
    for line in status.read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:  # it has ended
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def family(pid: int) -> list[int]:
    """The process and its children (``--workers``: the serving processes)."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    found = children.read_text().split() if children.exists() else []
    return [pid, *map(int, found)]


def family_cpu(pid: int) -> dict[int, float]:
    return {member: cpu_seconds(member) for member in family(pid)}


def cpu_between(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds the processes used between two readings (each counted while it lived)."""
    return sum(after[pid] - before.get(pid, 0.0) for pid in after)


def family_rss_mb(pid: int) -> float:
    return sum(rss_mb(member) for member in family(pid))


def machine_idle() -> tuple[float, float]:
    """Idle and total CPU time of the whole machine, in clock ticks (``/proc/stat``)."""
    ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return ticks[3] + ticks[4], sum(ticks)


# -- the load -------------------------------------------------------------------------------


@dataclass
class Conversation:
    started: float
    pid: int | None = None
    """The server process the question went to (its connection's)."""
    first_event: float | None = None
    answer: float | None = None
    error: str | None = None
    crossed: bool = False


@dataclass
class Result:
    n: int
    workers: int
    window: tuple[float, float]
    """Steady state: from the last client's start to the moment clients stop starting."""
    conversations: list[Conversation] = field(default_factory=list)
    peak_rss_mb: float = 0.0
    server_cpu: float = 0.0
    mock_cpu: float = 0.0
    client_cpu: float = 0.0
    load_average: float = 0.0
    machine_busy: float = 0.0
    gc_pauses: list[float] = field(default_factory=list)

    def row(self, latency: float) -> dict[str, Any]:
        start, stop = self.window
        steady = [c for c in self.conversations if c.started >= start]
        done = [c for c in steady if c.answer is not None and not c.error]
        ideal_answer = MODEL_CALLS * latency
        first = sorted(c.first_event for c in steady if c.first_event is not None)
        answers = sorted(c.answer for c in done if c.answer is not None)
        wall = stop - start
        throughput = self._ended() / wall
        return {
            "workers": self.workers,
            "N": self.n,
            "conversations": len(steady),
            "throughput /s": round(throughput, 1),
            "of ideal": f"{throughput / (self.n / ideal_answer):.0%}",
            "first event p50 ms": round(_pct(first, 50) * 1000),
            "first event p99 ms": round(_pct(first, 99) * 1000),
            "answer p50 ms": round(_pct(answers, 50) * 1000),
            "answer p99 ms": round(_pct(answers, 99) * 1000),
            "p99 / ideal": round(_pct(answers, 99) / ideal_answer, 2),
            "peak RSS MB": round(self.peak_rss_mb),
            "server busy": f"{self.server_cpu / wall:.0%}",
            "machine busy": f"{self.machine_busy:.0%}",
            "load avg": round(self.load_average, 1),
            "GC pauses ms": round(sum(self.gc_pauses) * 1000),
            "longest GC ms": round(max(self.gc_pauses, default=0.0) * 1000, 1),
            "CPU ms/conv server": self._per_conversation(self.server_cpu),
            "mock LLM": self._per_conversation(self.mock_cpu),
            "clients": self._per_conversation(self.client_cpu),
            "errors": sum(1 for c in self.conversations if c.error),
            "lost or crossed": sum(1 for c in self.conversations if c.answer is None or c.crossed),
        }

    def _ended(self) -> int:
        """Conversations answered within the window, whenever they started."""
        start, stop = self.window
        return sum(
            1
            for c in self.conversations
            if c.answer is not None and not c.error and start <= c.started + c.answer <= stop
        )

    def _per_conversation(self, seconds: float) -> float:
        """CPU seconds measured over the window, per conversation answered in it."""
        return round(seconds / max(1, self._ended()) * 1000, 1)


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(len(values) * q / 100))]


class SSEClient:
    """One simulated user's keep-alive connection: POST a question, read the event stream.

    Raw asyncio rather than httpx: at hundreds of connections httpx's pool costs
    the load generator more CPU than the server under test gets.
    """

    def __init__(self, host: str, port: int, key: str) -> None:
        self.host, self.port, self.key = host, port, key
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.pid: int | None = None

    async def connect(self) -> None:
        """Open the connection unless it is open, and ask which process took it (``/health``)."""
        if self.writer is not None and not self.writer.is_closing():
            return
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.write(f"GET /health HTTP/1.1\r\nhost: {self.host}\r\n\r\n".encode())
        head = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        length = re.search(r"(?im)^content-length:\s*(\d+)", head)
        body = await self.reader.readexactly(int(length.group(1)) if length else 0)
        self.pid = json.loads(body).get("pid")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def events(self, path: str, body: dict[str, Any]) -> AsyncIterator[str]:
        """The ``data:`` payloads of the response, as they arrive."""
        await self.connect()
        assert self.reader is not None and self.writer is not None
        payload = json.dumps(body).encode()
        self.writer.write(
            f"POST {path} HTTP/1.1\r\nhost: {self.host}\r\nauthorization: Bearer {self.key}\r\n"
            f"content-type: application/json\r\ncontent-length: {len(payload)}\r\n\r\n".encode()
            + payload
        )
        head = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        status = int(head.split(" ", 2)[1])
        if status != 200 or "chunked" not in head.lower():
            raise RuntimeError(f"HTTP {status}")
        pending = b""
        while size := int((await self.reader.readuntil(b"\r\n")).strip(), 16):
            pending += (await self.reader.readexactly(size + 2))[:-2]
            *events, pending = pending.split(b"\n\n")
            for event in events:
                if event.startswith(b"data: "):
                    yield event[len(b"data: ") :].decode()
        await self.reader.readuntil(b"\r\n")  # the end of the chunked body


async def converse(client: SSEClient, user: int, marker: str) -> Conversation:
    question = f"What is the secret code of user {user}? (conversation {marker})"
    try:
        await client.connect()
    except OSError as exc:
        client.close()
        return Conversation(time.perf_counter(), error=repr(exc))
    started = time.perf_counter()
    result = Conversation(started, client.pid)
    try:
        async for data in client.events("/api/ask", {"question": question}):
            if result.first_event is None:
                result.first_event = time.perf_counter() - started
            if '"type":"final"' in data:
                result.answer = time.perf_counter() - started
                final = json.loads(data)
                expected = (f"Conversation {marker}.", f"CODE-{user}-")
                result.crossed = not all(part in final["answer"] for part in expected)
                if final["outcome"] != "answered":
                    result.error = final["outcome"]
            elif '"type":"error"' in data:
                result.error = data
    except (OSError, RuntimeError, asyncio.IncompleteReadError) as exc:
        result.error = repr(exc)
        client.close()  # the next question opens a new connection, maybe to another process
    return result


def start_clients(
    base: str, keys: list[str], n: int, ramp: float, stop: float
) -> asyncio.Future[list[list[Conversation]]]:
    """N clients, started over ``ramp`` seconds, asking until ``stop`` (``perf_counter``)."""
    url = httpx.URL(base)
    host, port = url.host, url.port or 80

    async def client_loop(c: int) -> list[Conversation]:
        await asyncio.sleep(ramp * c / n)
        user = c % len(keys)
        client = SSEClient(host, port, keys[user])
        conversations = []
        try:
            while time.perf_counter() < stop:
                marker = f"c{c}-r{len(conversations)}"
                conversations.append(await converse(client, user, marker))
            return conversations
        finally:
            client.close()

    return asyncio.gather(*(client_loop(c) for c in range(n)))


async def run_load(
    base: str,
    keys: list[str],
    n: int,
    ramp: float,
    duration: float,
    pids: tuple[int, int],
    gc_log: Path,
    workers: int = 1,
) -> Result:
    began = time.perf_counter()
    stop = began + ramp + duration
    server_pid, mock_pid = pids
    tasks = start_clients(base, keys, n, ramp, stop)
    await asyncio.sleep(ramp)
    server_before, mock_before = family_cpu(server_pid), cpu_seconds(mock_pid)
    client_before, machine_before = time.process_time(), machine_idle()
    peak = 0.0
    while time.perf_counter() < stop:
        peak = max(peak, family_rss_mb(server_pid))
        await asyncio.sleep(0.2)
    result = Result(n, workers, (began + ramp, stop))
    result.server_cpu = cpu_between(server_before, family_cpu(server_pid))
    result.mock_cpu = cpu_seconds(mock_pid) - mock_before
    result.client_cpu = time.process_time() - client_before
    idle, total = (now - then for now, then in zip(machine_idle(), machine_before, strict=True))
    result.machine_busy = 1 - idle / total
    result.load_average = os.getloadavg()[0]
    result.gc_pauses = pauses(gc_log, *result.window)
    await tasks
    result.conversations = [c for per_client in tasks.result() for c in per_client]
    result.peak_rss_mb = max(peak, family_rss_mb(server_pid))
    return result


def add_users(db: str | Path) -> list[str]:
    from docuchat.store.accounts import open_accounts

    accounts = open_accounts(db)
    try:
        return [accounts.add_user(f"user{u}")[1] for u in range(USERS)]
    finally:
        accounts.close()


def wait_for_processes(base: str, workers: int, timeout: float = 60) -> None:
    """Until ``workers`` processes have answered ``/health`` (each new connection goes to one;
    the port refuses connections until a process listens)."""
    seen: set[int] = set()
    deadline = time.monotonic() + timeout
    while len(seen) < workers:
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {len(seen)} of {workers} server processes answered")
        try:
            with httpx.Client(base_url=base) as client:
                seen.add(client.get("/health").json()["pid"])
        except httpx.TransportError:
            time.sleep(0.1)


def upload_documents(base: str, keys: list[str]) -> None:
    with httpx.Client(base_url=base, timeout=60) as client:
        jobs = []
        for user, key in enumerate(keys):
            text = (
                f"# Notes of user {user}\n\nThe secret code of user {user} is CODE-{user}-"
                f"{os.urandom(3).hex()}.\n\nThe office plants are watered on Mondays."
            )
            files = {"files": (f"notes-{user}.md", text.encode())}
            response = client.post("/api/documents", headers=_auth(key), files=files)
            jobs.append((key, response.json()["job_id"]))
        for key, job_id in jobs:
            while client.get(f"/api/jobs/{job_id}", headers=_auth(key)).json()["status"] != "done":
                time.sleep(0.05)


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def markdown_table(rows: list[dict[str, Any]]) -> str:
    head = list(rows[0])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(r[h]) for h in head) + " |" for r in rows]
    return "\n".join(lines)


@dataclass(frozen=True)
class Setup:
    """A served database: where, whose keys, the processes to measure."""

    base: str
    db: str
    keys: list[str]
    server_pid: int
    """The server (with ``--workers``, the parent of the serving processes)."""
    mock_pid: int
    gc_log: Path


# Every process of the server logs its collector's pauses, the ones --workers starts too.
_SITECUSTOMIZE = """import os
if "BENCH_GC_LOG" in os.environ:
    import gc_pauses
    gc_pauses.install(os.environ["BENCH_GC_LOG"])
"""


@contextmanager
def database(spec: str | None, home: str) -> Iterator[str]:
    """The database a run uses: a new SQLite file in ``home`` (no ``spec``), a PostgreSQL
    server of its own (``pgserver``, in ``home``), or a ``postgresql://`` URL as given."""
    if spec != "pgserver":
        yield spec or str(Path(home) / "docuchat.db")
        return
    import pgserver
    import psycopg

    server = pgserver.get_server(Path(home) / "postgres", cleanup_mode="stop")
    url: str = server.get_uri()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    try:
        yield url
    finally:
        server.cleanup()


@contextmanager
def served(
    workers: int, latency: float, *, db: str | None = None, profile: str | None = None
) -> Iterator[Setup]:
    """The mock model and ``docuchat serve --workers W`` on a new ``database(db)``, with USERS
    users who have a document each."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with (
        tempfile.TemporaryDirectory() as home,
        database(db, home) as db,
        process(
            [sys.executable, __file__, "--mock", "--latency", str(latency)], env, r"^(\d+)$"
        ) as (mock, mock_port),
    ):
        keys = add_users(db)
        site = Path(home) / "site"
        site.mkdir()
        (site / "sitecustomize.py").write_text(_SITECUSTOMIZE)
        gc_log = Path(home) / "gc.log"
        env.update(
            OPENAI_BASE_URL=f"http://127.0.0.1:{mock_port}/v1",
            DOCUCHAT_HOME=home,
            BENCH_GC_LOG=str(gc_log),
            PYTHONPATH=os.pathsep.join(filter(None, [str(site), BENCH, env.get("PYTHONPATH")])),
        )
        serve = ["serve", "--port", "0", "--db", db, "--model", "openai:mock"]
        serve += ["--embedder", "none", "--no-access-log", "--workers", str(workers)]
        run = "from docuchat.cli.main import main; "
        run += f"import cProfile; cProfile.run('main()', {profile!r})" if profile else "main()"
        with process([sys.executable, "-c", run, *serve], env, r"running on (http://\S+)") as (
            server,
            base,
        ):
            wait_for_processes(base, workers)
            upload_documents(base, keys)
            yield Setup(base, db, keys, server.pid, mock.pid, gc_log)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[50, 200, 500])
    parser.add_argument("--workers", type=int, nargs="+", default=[1], help="server processes")
    parser.add_argument("--latency", type=float, default=LATENCY)
    parser.add_argument("--duration", type=float, default=6.0, help="seconds of steady state")
    parser.add_argument(
        "--ramp", type=float, help="seconds over which clients start (default 3 x latency)"
    )
    parser.add_argument(
        "--db", help="a postgresql:// URL, or pgserver for a server of its own (default: SQLite)"
    )
    parser.add_argument("--profile", metavar="PATH", help="run the server under cProfile")
    parser.add_argument("--mock", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    ramp = MODEL_CALLS * args.latency if args.ramp is None else args.ramp
    if args.mock:
        uvloop.run(serve_mock(args.latency))
        return

    rows = []
    for workers in args.workers:
        with served(workers, args.latency, db=args.db, profile=args.profile) as setup:
            pids = setup.server_pid, setup.mock_pid
            load = partial(run_load, setup.base, setup.keys, gc_log=setup.gc_log, workers=workers)
            uvloop.run(load(10, ramp, 1.0, pids))  # warm up
            for n in args.n:
                result = uvloop.run(load(n, ramp, args.duration, pids))
                errors = [c.error for c in result.conversations if c.error]
                if errors:
                    print(f"{len(errors)} errors, e.g. {errors[0]}", flush=True)
                rows.append(result.row(args.latency))
                print(json.dumps(rows[-1]), flush=True)
    print()
    print(markdown_table(rows))


if __name__ == "__main__":
    main()
