"""CPU per model call for httpx and aiohttp with many streamed calls in flight.

Both clients post the same chat request to the load benchmark's mock model
server (its own process, ``--latency`` per call) from N concurrent tasks, each
making ``--calls`` streamed calls in a row on one shared keep-alive pool, and
read each stream to ``[DONE]``, as the OpenAI-compatible adapter does. The
clients alternate over ``--repeats`` runs; the figure is this process's CPU
time per call (the mock's is not counted).

    python bench/http_clients.py                 # N = 50, 200, 500
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
import httpx
import uvloop

sys.path.insert(0, str(Path(__file__).parent))
from load_server import markdown_table, process

BODY = {
    "model": "mock",
    "stream": True,
    "messages": [
        {"role": "user", "content": "What is the secret code of user 1? (conversation c1)"}
    ],
}
Client = Callable[[str, int, int], Awaitable[None]]


async def with_httpx(url: str, n: int, calls: int) -> None:
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=n)
    async with httpx.AsyncClient(limits=limits) as client:

        async def one() -> None:
            for _ in range(calls):
                async with client.stream("POST", url, json=BODY) as response:
                    async for line in response.aiter_lines():
                        if line == "data: [DONE]":
                            break

        await asyncio.gather(*(one() for _ in range(n)))


async def with_aiohttp(url: str, n: int, calls: int) -> None:
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:

        async def one() -> None:
            for _ in range(calls):
                async with session.post(url, json=BODY) as response:
                    async for line in response.content:
                        if line.strip() == b"data: [DONE]":
                            break

        await asyncio.gather(*(one() for _ in range(n)))


def cpu_per_call(client: Client, url: str, n: int, calls: int) -> float:
    started = time.process_time()
    uvloop.run(client(url, n, calls))
    return (time.process_time() - started) / (n * calls) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[50, 200, 500])
    parser.add_argument("--calls", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    mock = [sys.executable, str(Path(__file__).parent / "load_server.py"), "--mock"]
    rows = []
    with process([*mock, "--latency", str(args.latency)], dict(os.environ), r"^(\d+)$") as (
        _,
        port,
    ):
        url = f"http://127.0.0.1:{port}/v1/chat/completions"
        for n in args.n:
            samples: dict[str, list[float]] = {"httpx": [], "aiohttp": []}
            for _ in range(args.repeats):
                samples["httpx"].append(cpu_per_call(with_httpx, url, n, args.calls))
                samples["aiohttp"].append(cpu_per_call(with_aiohttp, url, n, args.calls))
            httpx_us, aiohttp_us = (statistics.median(samples[k]) for k in ("httpx", "aiohttp"))
            rows.append(
                {
                    "calls in flight": n,
                    "httpx µs CPU/call": round(httpx_us),
                    "aiohttp µs CPU/call": round(aiohttp_us),
                    "httpx / aiohttp": f"{httpx_us / aiohttp_us:.1f}x",
                }
            )
            print(rows[-1], flush=True)
    print()
    print(markdown_table(rows))


if __name__ == "__main__":
    main()
