"""The loop's ordinary path: answer, tool round trips, concurrency, history format."""

from __future__ import annotations

import asyncio
import time

from docuchat.agent import Agent, Limits, tool
from docuchat.models import ScriptedModel
from docuchat.models.base import AssistantMessage, ToolResultsMessage, UserMessage
from docuchat.models.scripted import call, calls, reply


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
async def slow_echo(text: str, seconds: float = 0.3) -> str:
    """Echo text after a pause."""
    await asyncio.sleep(seconds)
    return text


def test_plain_answer_without_tools() -> None:
    model = ScriptedModel([reply("Paris.")])
    result = Agent(model).run_sync("Capital of France?")
    assert result.outcome == "answered"
    assert result.ok and not result.forced
    assert result.output == "Paris."
    assert result.error_code is None
    model.assert_all_consumed()


def test_tool_result_is_fed_back_and_schema_is_sent() -> None:
    def answer_from_result(request):  # type: ignore[no-untyped-def]
        results = request.messages[-1]
        assert isinstance(results, ToolResultsMessage)
        return reply(f"The sum is {results.results[0].content}.")

    model = ScriptedModel([call("add", a=2, b=3), answer_from_result])
    result = Agent(model, tools=[add]).run_sync("2+3?")
    assert result.output == "The sum is 5."
    first_request = model.requests[0]
    assert [t.name for t in first_request.tools] == ["add"]
    assert first_request.tools[0].parameters["required"] == ["a", "b"]
    assert result.usage.tool_calls == 1
    assert len(result.usage.model_calls) == 2


def test_history_has_one_assistant_message_then_one_results_message_per_iteration() -> None:
    model = ScriptedModel(
        [calls(("add", {"a": 1, "b": 1}), ("add", {"a": 2, "b": 2})), reply("done")]
    )
    result = Agent(model, tools=[add]).run_sync("sums")
    kinds = [type(m) for m in result.messages]
    assert kinds == [UserMessage, AssistantMessage, ToolResultsMessage, AssistantMessage]
    assistant, results = result.messages[1], result.messages[2]
    assert isinstance(assistant, AssistantMessage) and isinstance(results, ToolResultsMessage)
    assert [r.call_id for r in results.results] == [c.id for c in assistant.tool_calls]
    assert [r.content for r in results.results] == ["2", "4"]


def test_independent_calls_run_concurrently_and_keep_call_order() -> None:
    model = ScriptedModel(
        [
            calls(
                ("slow_echo", {"text": "first", "seconds": 0.4}),
                ("slow_echo", {"text": "second", "seconds": 0.1}),
                ("slow_echo", {"text": "third", "seconds": 0.2}),
            ),
            reply("ok"),
        ]
    )
    started = time.perf_counter()
    result = Agent(model, tools=[slow_echo]).run_sync("go")
    elapsed = time.perf_counter() - started
    assert elapsed < 0.65, f"calls ran one after another ({elapsed:.2f}s)"
    results = result.messages[2]
    assert isinstance(results, ToolResultsMessage)
    assert [r.content for r in results.results] == ["first", "second", "third"]
    finished = [e.input["text"] for e in result.events if e.type == "tool_call_finished"]
    assert finished == ["second", "third", "first"], "events arrive in completion order"


def test_follow_up_sees_history() -> None:
    model = ScriptedModel([reply("It is 4."), reply("Then 8.")])
    agent = Agent(model)
    first = agent.run_sync("2+2?")
    second = agent.run_sync("Double it.", history=first.messages)
    assert second.output == "Then 8."
    sent = model.requests[1].messages
    assert [getattr(m, "content", getattr(m, "text", "")) for m in sent] == [
        "2+2?",
        "It is 4.",
        "Double it.",
    ]


def test_system_prompt_and_limits_travel_with_request() -> None:
    model = ScriptedModel([reply("hi")])
    result = Agent(model, system_prompt="Be brief.", limits=Limits(max_iterations=2)).run_sync("x")
    assert model.requests[0].system == "Be brief."
    started = result.events[0]
    assert started.type == "run_started"
    assert started.limits["max_iterations"] == 2
