"""The scripted work every framework does in the agent-loop overhead benchmark.

One run is 10 iterations, each one model call: calls 1 to 9 each answer with
one call of the tool ``lookup(n=k)`` (k = 0..8: distinct arguments, so no
framework may answer a call from memory), the loop executes it and feeds its
result back; call 10 answers ``"done"``. That is 10 model calls and 9 tool
executions per run.

The model picks its reply from the history length alone: every framework keeps
the question plus two messages per finished iteration (the model's tool call,
the tool's result), so no script state is needed and concurrent runs can share
one model. :class:`Work` counts model calls and tool executions so the driver
can prove that every framework did all of it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

ITERATIONS = 10
TOOL_CALLS = ITERATIONS - 1
QUESTION = "What does item 8 say?"
ANSWER = "done"
TOOL_NAME = "lookup"
TOOL_RESULT = "ok"

Runner = Callable[[], Awaitable[None]]
"""One complete agent run; raises when the run did not end with :data:`ANSWER`."""


@dataclass(frozen=True)
class Framework:
    name: str
    distributions: tuple[str, ...]
    """Installed distributions whose versions the report names."""
    build: Callable[[Work], Runner]
    """Builds the agent once (as an application would) and returns its runner."""


class Hold:
    """Parks each run at its last tool call until ``runs`` runs are parked, then until released."""

    def __init__(self, runs: int) -> None:
        self.runs = runs
        self.parked = 0
        self.all_parked = asyncio.Event()
        self.released = asyncio.Event()

    async def park(self) -> None:
        self.parked += 1
        if self.parked == self.runs:
            self.all_parked.set()
        await self.released.wait()


class Work:
    """The model's script and the tool, shared by every framework, with counters."""

    def __init__(self, hold: Hold | None = None) -> None:
        self.model_calls = 0
        self.tool_calls = 0

        async def lookup(n: int) -> str:
            """Look up item number n."""
            self.tool_calls += 1
            if hold is not None and n == TOOL_CALLS - 1:
                await hold.park()
            return TOOL_RESULT

        self.lookup = lookup

    def next_call(self, history_length: int) -> int | None:
        """The argument of the tool call the model makes next; None: answer now."""
        self.model_calls += 1
        finished = (history_length - 1) // 2
        return finished if finished < TOOL_CALLS else None


def expect_answer(output: object) -> None:
    if output != ANSWER:
        raise AssertionError(f"the run ended with {output!r}, not the scripted answer")
