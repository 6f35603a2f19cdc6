"""Tool errors go to the model as error results; the run goes on."""

from __future__ import annotations

import asyncio

from docuchat.agent import Agent, Limits, tool
from docuchat.models import ScriptedModel
from docuchat.models.base import ModelResponse, ToolCall, ToolResultsMessage
from docuchat.models.scripted import call, reply


@tool
def divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


@tool(timeout=0.2)
async def hang() -> str:
    """Never returns in time."""
    await asyncio.sleep(5)
    return "late"


def _run(first_step: ModelResponse, tools=(divide, hang)):  # type: ignore[no-untyped-def]
    model = ScriptedModel([first_step, reply("recovered")])
    result = Agent(model, tools=list(tools)).run_sync("q")
    results = result.messages[2]
    assert isinstance(results, ToolResultsMessage)
    finished = [e for e in result.events if e.type == "tool_call_finished"]
    return result, results.results[0], finished[0]


def test_unknown_tool_is_an_error_result_naming_available_tools() -> None:
    result, tool_result, event = _run(call("multiply", a=1))
    assert result.outcome == "answered" and result.output == "recovered"
    assert tool_result.is_error
    assert "Unknown tool 'multiply'" in tool_result.content
    assert "divide" in tool_result.content
    assert event.error_code == "UNKNOWN_TOOL" and not event.ok


def test_arguments_are_validated_before_the_handler_runs() -> None:
    ran = []

    @tool
    def record(n: int) -> int:
        """Record n."""
        ran.append(n)
        return n

    _, tool_result, event = _run(call("record", n="not a number"), tools=[record])
    assert ran == []
    assert tool_result.is_error and "Invalid arguments for tool 'record'" in tool_result.content
    assert "n:" in tool_result.content
    assert event.error_code == "INVALID_ARGUMENTS"


def test_unexpected_argument_is_rejected() -> None:
    _, tool_result, _ = _run(call("divide", a=1, b=2, c=3))
    assert tool_result.is_error and "c:" in tool_result.content


def test_arguments_that_are_not_json_are_reported() -> None:
    broken = ModelResponse(
        tool_calls=(ToolCall("c1", "divide", {}, raw_arguments='{"a": 1, "b":'),),
        finish_reason="tool_calls",
    )
    _, tool_result, event = _run(broken)
    assert tool_result.is_error and "not valid JSON" in tool_result.content
    assert event.error_code == "INVALID_ARGUMENTS"


def test_handler_exception_becomes_error_result() -> None:
    _, tool_result, event = _run(call("divide", a=1, b=0))
    assert tool_result.is_error
    assert "ZeroDivisionError" in tool_result.content
    assert event.error_code == "TOOL_EXCEPTION"


def test_tool_timeout_becomes_error_result() -> None:
    result, tool_result, event = _run(call("hang"))
    assert tool_result.is_error and "timed out after 0.2s" in tool_result.content
    assert event.error_code == "TOOL_TIMEOUT"
    assert result.usage.wall_ms < 2000


def test_default_tool_timeout_comes_from_limits() -> None:
    @tool
    async def slow() -> str:
        """Slow."""
        await asyncio.sleep(3)
        return "x"

    model = ScriptedModel([call("slow"), reply("ok")])
    result = Agent(model, tools=[slow], limits=Limits(tool_timeout=0.1)).run_sync("q")
    results = result.messages[2]
    assert isinstance(results, ToolResultsMessage)
    assert "timed out after 0.1s" in results.results[0].content


def test_output_is_capped_per_tool() -> None:
    @tool(max_output_chars=50)
    def big() -> str:
        """Big output."""
        return "x" * 500

    model = ScriptedModel([call("big"), reply("ok")])
    result = Agent(model, tools=[big]).run_sync("q")
    results = result.messages[2]
    assert isinstance(results, ToolResultsMessage)
    content = results.results[0].content
    assert content.startswith("x" * 50) and "[truncated: 450 more characters]" in content
