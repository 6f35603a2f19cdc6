"""Where a framework's loop time goes: cProfile over sequential runs, as shares of the total.

Shares are of the whole profiled time (event loop included); cProfile counts
every resumption of a coroutine as a call, so "calls per iteration" of an
``async def`` is its resumptions. Profiling inflates cheap calls, so read the
shares as a ranking and confirm a fix by the benchmark's timings.
"""

from __future__ import annotations

import asyncio
import cProfile
import pstats
import re
from dataclasses import dataclass

from loop_work import ITERATIONS, Framework, Work

_PREFIX = re.compile(r"^.*/(site-packages|src|lib/python3\.\d+)/")


@dataclass(frozen=True)
class Row:
    function: str
    own_share: float
    cumulative_share: float
    calls_per_iteration: float


def profile(framework: Framework, runs: int) -> list[Row]:
    """Every function seen while ``runs`` runs execute one after another."""
    run_once = framework.build(Work())

    async def many() -> None:
        for _ in range(runs):
            await run_once()

    asyncio.run(many())  # warm-up
    profiler = cProfile.Profile()
    profiler.runcall(asyncio.run, many())
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = sum(own for _cc, _nc, own, _cum, _callers in stats.values())
    iterations = runs * ITERATIONS
    return [
        Row(_label(key), own / total, cumulative / total, calls / iterations)
        for key, (_cc, calls, own, cumulative, _callers) in stats.items()
    ]


def render(rows: list[Row], *, top: int, focus: str) -> str:
    """The ``top`` rows by own time, then those whose name contains ``focus`` by cumulative."""
    by_own = sorted(rows, key=lambda r: r.own_share, reverse=True)[:top]
    by_cumulative = sorted(
        (r for r in rows if focus in r.function), key=lambda r: r.cumulative_share, reverse=True
    )[:top]
    return "\n\n".join(
        (
            _table(f"Top {top} by own time", by_own),
            _table(f"{focus} functions by cumulative time", by_cumulative),
        )
    )


def _table(title: str, rows: list[Row]) -> str:
    lines = [
        f"### {title}",
        "",
        "| function | own | cumulative | calls per iteration |",
        "|---|---:|---:|---:|",
    ]
    lines += [
        f"| `{r.function}` | {r.own_share:.1%} | {r.cumulative_share:.1%} "
        f"| {r.calls_per_iteration:.1f} |"
        for r in rows
    ]
    return "\n".join(lines)


def _label(key: tuple[str, int, str]) -> str:
    path, line, name = key
    return f"{_PREFIX.sub('', path)}:{line}({name})" if line else name
