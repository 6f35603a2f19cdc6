"""Agent-loop overhead: docuchat against pydantic-ai and LangGraph on the same scripted work.

    .venv/bin/python bench/loop_overhead.py [--json] [--repeats N] [--profile]

Time per iteration: each framework does sequential runs of 10 iterations
(see loop_work.py) with an instant scripted model and a tool that returns a
constant, so everything measured is the framework's own work. Batches of about
``--batch-seconds`` per framework are interleaved, in a rotating order, over
``--repeats`` rounds; the report gives the median and the interquartile range.
Memory: ``--concurrent`` runs in flight at once, in a fresh process per
framework (loop_memory.py). Every batch checks that all model calls and tool
executions happened.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from loop_frameworks import FRAMEWORKS, OURS, versions
from loop_profile import profile, render
from loop_work import ITERATIONS, TOOL_CALLS, Framework, Runner, Work

GOAL = 5.0
"""docuchat's overhead per iteration must be at least this many times below the fastest other's."""


@dataclass(frozen=True)
class Timing:
    median_us: float
    p25_us: float
    p75_us: float
    runs_per_batch: int
    samples_us: list[float]


@dataclass(frozen=True)
class Report:
    python: str
    versions: dict[str, str]
    timing: dict[str, Timing]
    memory: dict[str, dict[str, float]]
    concurrent: int

    def time_ratio(self, name: str) -> float:
        return self.timing[name].median_us / self.timing[OURS].median_us

    def memory_ratio(self, name: str) -> float:
        return self.memory[name]["rss_kib_per_run"] / self.memory[OURS]["rss_kib_per_run"]

    @property
    def goal_ratio(self) -> float:
        """The fastest other framework's time per iteration over docuchat's."""
        return min(self.time_ratio(name) for name in self.timing if name != OURS)


class _Subject:
    """One framework's agent, built once, and its counters."""

    def __init__(self, framework: Framework) -> None:
        self.name = framework.name
        self.work = Work()
        self.run_once: Runner = framework.build(self.work)
        self.runs_per_batch = 1

    async def batch(self) -> float:
        """Seconds per iteration over ``runs_per_batch`` runs, after checking all work was done."""
        before = (self.work.model_calls, self.work.tool_calls)
        gc.collect()
        started = time.perf_counter()
        for _ in range(self.runs_per_batch):
            await self.run_once()
        elapsed = time.perf_counter() - started
        done = (self.work.model_calls - before[0], self.work.tool_calls - before[1])
        expected = (self.runs_per_batch * ITERATIONS, self.runs_per_batch * TOOL_CALLS)
        if done != expected:
            raise AssertionError(f"{self.name}: (model calls, tool calls) {done} != {expected}")
        return elapsed / (self.runs_per_batch * ITERATIONS)

    async def calibrate(self, batch_seconds: float) -> None:
        """Warm up, then size batches to take about ``batch_seconds``."""
        self.runs_per_batch = 3
        await self.batch()
        per_run = await self.batch() * ITERATIONS
        self.runs_per_batch = max(3, round(batch_seconds / per_run))


async def _time_all(repeats: int, batch_seconds: float) -> dict[str, Timing]:
    subjects = [_Subject(f) for f in FRAMEWORKS.values()]
    for subject in subjects:
        await subject.calibrate(batch_seconds)
    samples: dict[str, list[float]] = {s.name: [] for s in subjects}
    for round_ in range(repeats):
        shift = round_ % len(subjects)
        for subject in subjects[shift:] + subjects[:shift]:
            samples[subject.name].append(await subject.batch() * 1e6)
    timing = {}
    for subject in subjects:
        values = samples[subject.name]
        p25, _, p75 = statistics.quantiles(values, n=4)
        timing[subject.name] = Timing(
            statistics.median(values), p25, p75, subject.runs_per_batch, values
        )
    return timing


def _measure_memory(concurrent: int) -> dict[str, dict[str, float]]:
    """One fresh process per framework, all started at once (memory needs no quiet machine)."""
    script = Path(__file__).with_name("loop_memory.py")
    children = {
        name: subprocess.Popen(
            [sys.executable, str(script), name, str(concurrent)], stdout=subprocess.PIPE, text=True
        )
        for name in FRAMEWORKS
    }
    memory = {}
    for name, child in children.items():
        stdout, _ = child.communicate()
        if child.returncode != 0:
            raise RuntimeError(f"memory measurement of {name} failed (exit {child.returncode})")
        memory[name] = json.loads(stdout)
    return memory


def _markdown(report: Report) -> str:
    rounds = len(report.timing[OURS].samples_us)
    lines = [
        f"{ITERATIONS} iterations per run ({TOOL_CALLS} with one tool call, then the answer); "
        f"time per iteration: median (interquartile range) over {rounds} interleaved batches; "
        f"memory: RSS growth per run with {report.concurrent:,} runs in flight.",
        "",
        "| framework | version | µs per iteration | × docuchat | KiB per run in flight "
        "| × docuchat |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for name, timing in report.timing.items():
        rss = report.memory[name]["rss_kib_per_run"]
        lines.append(
            f"| {name} | {report.versions[name]} "
            f"| {timing.median_us:,.0f} ({timing.p25_us:,.0f}–{timing.p75_us:,.0f}) "
            f"| {report.time_ratio(name):.1f} | {rss:,.1f} | {report.memory_ratio(name):.1f} |"
        )
    verdict = "met" if report.goal_ratio >= GOAL else "missed"
    lines += [
        "",
        f"Goal: at least {GOAL:g}× less overhead per iteration than the fastest other framework: "
        f"**{verdict}** ({report.goal_ratio:.1f}×). Python {report.python}. What each framework "
        "does per iteration, and what this does not measure: bench/README.md.",
    ]
    return "\n".join(lines)


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description="Agent-loop overhead per iteration and per run.")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--repeats", type=int, default=25, help="interleaved rounds (default 25)")
    parser.add_argument(
        "--batch-seconds", type=float, default=0.2, help="time per framework per round"
    )
    parser.add_argument(
        "--concurrent", type=int, default=1000, help="runs in flight for the memory measure"
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="instead: profile docuchat's loop with cProfile and print where its time goes",
    )
    args = parser.parse_args()
    if args.profile:
        print(render(profile(FRAMEWORKS[OURS], runs=500), top=25, focus="docuchat/"))
        return
    _progress(f"timing: {args.repeats} interleaved rounds")
    timing = asyncio.run(_time_all(args.repeats, args.batch_seconds))
    _progress(f"memory: {args.concurrent:,} runs in flight per framework")
    report = Report(
        python=platform.python_version(),
        versions={name: versions(f) for name, f in FRAMEWORKS.items()},
        timing=timing,
        memory=_measure_memory(args.concurrent),
        concurrent=args.concurrent,
    )
    if args.json:
        document: dict[str, Any] = asdict(report)
        document["goal"] = {"at_least": GOAL, "achieved": report.goal_ratio}
        print(json.dumps(document, indent=2))
    else:
        print(_markdown(report))


if __name__ == "__main__":
    main()
