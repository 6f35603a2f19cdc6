"""Memory per run in flight: ``python bench/loop_memory.py FRAMEWORK RUNS [--traced]``.

Starts RUNS runs at once (``asyncio.gather``); each parks at its last tool call
(iteration 9 of 10, so it holds nearly its whole history) until all are parked.
Then it measures, releases them and checks that all finished; it prints JSON.
Run in a fresh process per framework so that one framework's freed memory
cannot hide another's growth.

The measure is the RSS growth. ``--traced`` adds a second pass reading
tracemalloc's live bytes (a cross-check that excludes allocator slack); tracing
slows pydantic-ai and LangGraph about fourfold, minutes at 1,000 runs, so it is
not part of the default benchmark.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from loop_frameworks import FRAMEWORKS
from loop_work import ITERATIONS, TOOL_CALLS, Framework, Hold, Work

PARK_TIMEOUT_S = 300.0


async def _in_flight(framework: Framework, runs: int, measure: Callable[[], int]) -> int:
    """``measure()`` with ``runs`` runs parked, minus ``measure()`` before they started."""
    hold = Hold(runs)
    work = Work(hold)
    run_once = framework.build(work)
    gc.collect()
    before = measure()
    batch = asyncio.gather(*(run_once() for _ in range(runs)))
    try:
        await asyncio.wait_for(hold.all_parked.wait(), PARK_TIMEOUT_S)
        gc.collect()
        grown = measure() - before
    finally:
        hold.released.set()
        await batch
    if (work.model_calls, work.tool_calls) != (runs * ITERATIONS, runs * TOOL_CALLS):
        raise AssertionError(f"{framework.name}: {work.model_calls} model calls, {work.tool_calls}")
    return grown


def _rss() -> int:
    """Resident set size in bytes (Linux)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


def _traced() -> int:
    return tracemalloc.get_traced_memory()[0]


async def measure(framework: Framework, runs: int, *, traced: bool) -> dict[str, float]:
    await _in_flight(framework, 1, _rss)  # warm-up: lazy imports, caches, first-use allocations
    result = {
        "runs": runs,
        "rss_kib_per_run": await _in_flight(framework, runs, _rss) / runs / 1024,
    }
    if traced:
        tracemalloc.start()
        live = await _in_flight(framework, runs, _traced)
        tracemalloc.stop()
        result["traced_kib_per_run"] = live / runs / 1024
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description="Memory per agent run in flight.")
    parser.add_argument("framework", choices=FRAMEWORKS)
    parser.add_argument("runs", type=int)
    parser.add_argument("--traced", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(measure(FRAMEWORKS[args.framework], args.runs, traced=args.traced))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
