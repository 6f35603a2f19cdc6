"""Cancellation: checked before each step, interrupts in-flight work, transcript stays valid."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from docuchat.agent import Agent, Cancellation, tool
from docuchat.models import ScriptedModel
from docuchat.models.base import AssistantMessage, ToolResultsMessage
from docuchat.models.scripted import call, calls, reply


async def test_cancel_before_start_makes_no_model_call() -> None:
    cancel = Cancellation()
    cancel.cancel("user left")
    model = ScriptedModel([reply("never")])
    result = await Agent(model).run("q", cancel=cancel)
    assert result.outcome == "cancelled" and result.error_code == "EXECUTION_CANCELLED"
    assert result.phase == "before_model_call" and result.reason == "user left"
    assert model.requests == []


async def test_cancel_interrupts_an_in_flight_model_request() -> None:
    cancel = Cancellation()
    model = ScriptedModel([reply("slow")], delay=10)
    asyncio.get_running_loop().call_later(0.1, cancel.cancel)
    started = time.perf_counter()
    result = await Agent(model).run("q", cancel=cancel)
    assert time.perf_counter() - started < 2
    assert result.outcome == "cancelled" and result.phase == "model_call"


async def test_cancel_interrupts_running_tools_and_every_call_gets_a_result() -> None:
    started_tools = asyncio.Event()
    finished: list[str] = []

    @tool
    async def work(name: str) -> str:
        """Long work."""
        started_tools.set()
        await asyncio.sleep(10)
        finished.append(name)
        return name

    cancel = Cancellation()
    model = ScriptedModel([calls(("work", {"name": "a"}), ("work", {"name": "b"}))])
    run = asyncio.create_task(Agent(model, tools=[work]).run("q", cancel=cancel))
    await started_tools.wait()
    cancel.cancel()
    result = await asyncio.wait_for(run, 2)
    assert result.outcome == "cancelled" and result.phase == "tool_execution"
    assert finished == []
    assistant, results = result.messages[-2], result.messages[-1]
    assert isinstance(assistant, AssistantMessage) and isinstance(results, ToolResultsMessage)
    assert [r.call_id for r in results.results] == [c.id for c in assistant.tool_calls]
    assert all(r.is_error for r in results.results)


def test_cancel_from_another_thread() -> None:
    cancel = Cancellation()
    model = ScriptedModel([reply("slow")], delay=10)
    threading.Timer(0.2, cancel.cancel).start()
    started = time.perf_counter()
    result = Agent(model).run_sync("q", cancel=cancel)
    assert result.outcome == "cancelled"
    assert time.perf_counter() - started < 3


async def test_cancel_is_checked_before_tools_run() -> None:
    cancel = Cancellation()
    ran: list[int] = []

    @tool
    async def trip(x: int) -> int:
        """Record x."""
        ran.append(x)
        return x

    def cancel_then_call(_request):  # type: ignore[no-untyped-def]
        cancel.cancel("enough")
        return call("trip", x=1)

    model = ScriptedModel([cancel_then_call])
    result = await Agent(model, tools=[trip]).run("q", cancel=cancel)
    assert result.outcome == "cancelled" and result.phase == "before_tool"
    assert ran == []
    results = result.messages[-1]
    assert isinstance(results, ToolResultsMessage) and results.results[0].is_error


async def test_cancel_between_iterations_stops_before_the_next_model_call() -> None:
    cancel = Cancellation()
    model = ScriptedModel([call("lookup_and_cancel", x=1), reply("never")])

    @tool
    async def lookup_and_cancel(x: int) -> int:
        """Return x; the caller cancels once the tool round is over."""
        return x

    agent = Agent(model, tools=[lookup_and_cancel])
    stream = agent.stream("q", cancel=cancel)
    async for event in stream:
        if event.type == "tool_call_finished":
            cancel.cancel("enough")
    result = stream.result
    assert result.outcome == "cancelled"
    assert result.phase in ("before_model_call", "tool_execution")
    assert len(model.requests) == 1


async def test_cancelling_the_run_task_itself_propagates_and_stops_the_step() -> None:
    stopped = asyncio.Event()

    @tool
    async def wait_long() -> str:
        """Long work."""
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            stopped.set()
            raise
        return "done"

    model = ScriptedModel([call("wait_long"), reply("never")])
    run = asyncio.create_task(Agent(model, tools=[wait_long]).run("q", cancel=Cancellation()))
    await asyncio.sleep(0.1)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    await asyncio.wait_for(stopped.wait(), 1)  # the tool's own task was cancelled too
