"""Every limit ends the run with a typed outcome, or forces a marked synthesis."""

from __future__ import annotations

import asyncio

import pytest

from docuchat.agent import Agent, Limits, tool
from docuchat.agent.prompts import SYNTHESIS_PROMPT
from docuchat.models import ScriptedModel
from docuchat.models.base import ModelRequest, ModelResponse, TokenUsage, UserMessage
from docuchat.models.scripted import call, calls, reply


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


def _always_calls(request: ModelRequest) -> ModelResponse:
    if request.tool_choice == "none":
        return reply("Based on lookups: value of k1.")
    n = sum(1 for m in request.messages if m.role == "assistant")
    return call("lookup", key=f"k{n}")


def test_max_iterations_stops_with_typed_outcome_transcript_and_usage() -> None:
    model = ScriptedModel(_always_calls)
    result = Agent(model, tools=[lookup], limits=Limits(max_iterations=3)).run_sync("q")
    assert result.outcome == "max_iterations"
    assert result.error_code == "MAX_ITERATIONS"
    assert result.output is None and not result.forced and not result.ok
    assert len(result.usage.model_calls) == 3
    assert result.usage.tool_calls == 3
    assert len(result.messages) == 1 + 3 * 2
    limit = [e for e in result.events if e.type == "limit_reached"]
    assert limit and limit[0].limit == "max_iterations" and limit[0].action == "stop"
    assert result.events[-1].type == "run_failed"
    # Seed 003: MAX_ITERATIONS carries {attempt, iterationCount, maxIterations}.
    expected = {"attempt": 1, "iteration": 3, "max_iterations": 3}
    assert result.error_context == expected
    assert result.events[-1].error_context == expected


def test_limit_can_force_a_marked_synthesis_without_tools() -> None:
    model = ScriptedModel(_always_calls)
    limits = Limits(max_iterations=2, on_max_iterations="synthesize")
    result = Agent(model, tools=[lookup], limits=limits).run_sync("q")
    assert result.outcome == "max_iterations"
    assert result.forced and not result.ok
    assert result.output == "Based on lookups: value of k1."
    synthesis = model.requests[-1]
    assert synthesis.tool_choice == "none" and not synthesis.tools
    last = synthesis.messages[-1]
    assert isinstance(last, UserMessage) and last.content == SYNTHESIS_PROMPT
    assert "ONLY report results you actually received" in SYNTHESIS_PROMPT
    final = result.events[-1]
    assert final.type == "final_answer" and final.forced and final.outcome == "max_iterations"


def test_max_tool_calls_does_not_execute_calls_past_the_cap() -> None:
    executed: list[str] = []

    @tool
    def note(key: str) -> str:
        """Note a key."""
        executed.append(key)
        return "noted"

    model = ScriptedModel(
        [calls(("note", {"key": "a"}), ("note", {"key": "b"}), ("note", {"key": "c"}))]
    )
    result = Agent(model, tools=[note], limits=Limits(max_tool_calls=2)).run_sync("q")
    assert executed == ["a", "b"]
    assert result.outcome == "max_tool_calls" and result.error_code == "MAX_TOOL_CALLS"
    refused = [e for e in result.events if e.type == "tool_call_finished" and not e.ok]
    assert [e.error_code for e in refused] == ["TOOL_CALL_LIMIT"]
    # the transcript stays valid: every call has a result
    assert len(result.messages[-1].results) == 3  # type: ignore[union-attr]


def test_exactly_reaching_the_tool_cap_still_lets_the_model_answer() -> None:
    model = ScriptedModel([call("lookup", key="a"), call("lookup", key="b"), reply("done")])
    result = Agent(model, tools=[lookup], limits=Limits(max_tool_calls=2)).run_sync("q")
    assert result.outcome == "answered" and result.output == "done"


def test_run_timeout_interrupts_a_slow_model() -> None:
    model = ScriptedModel([reply("too late")], delay=5)
    result = Agent(model, limits=Limits(timeout=0.2)).run_sync("q")
    assert result.outcome == "timeout" and result.error_code == "TIMEOUT"
    assert result.usage.wall_ms < 1500


def test_timeout_can_force_synthesis_within_the_grace_period() -> None:
    @tool
    async def slow(key: str) -> str:
        """Slow."""
        await asyncio.sleep(5)
        return key

    model = ScriptedModel([call("slow", key="x"), reply("Nothing was received: not processed.")])
    limits = Limits(timeout=0.3, on_timeout="synthesize", synthesis_grace=5)
    result = Agent(model, tools=[slow], limits=limits).run_sync("q")
    assert result.outcome == "timeout" and result.forced
    assert result.output == "Nothing was received: not processed."
    # the interrupted tool call still has a result in the transcript
    results = [m for m in result.messages if m.role == "tool"]
    assert results and results[0].results[0].is_error  # type: ignore[union-attr]


def test_a_model_call_over_its_time_ends_the_run_without_asking_the_model_again() -> None:
    model = ScriptedModel([reply("too late"), reply("a synthesis")], delay=5)
    limits = Limits(model_timeout=0.2, timeout=10, on_timeout="synthesize")
    result = Agent(model, limits=limits).run_sync("q")
    assert (result.outcome, result.error_code, result.forced) == ("timeout", "TIMEOUT", False)
    assert result.reason == "the model did not answer within 0.2s"
    assert result.error_context["model_timeout"] == 0.2
    [limit] = [e for e in result.events if e.type == "limit_reached"]
    assert (limit.limit, limit.action) == ("model_timeout", "stop")
    assert result.usage.wall_ms < 1500 and model.remaining == 2


@pytest.mark.parametrize("name", ["timeout", "model_timeout"])
def test_time_limits_must_be_positive(name: str) -> None:
    with pytest.raises(ValueError, match=name):
        Limits(**{name: 0})


def test_token_budget_gate_synthesises_when_less_than_a_round_is_left() -> None:
    model = ScriptedModel(
        [
            ModelResponse(
                tool_calls=call("lookup", key="a").tool_calls, usage=TokenUsage(900, 100)
            ),
            ModelResponse(text="From what I received: value of a.", usage=TokenUsage(50, 10)),
        ]
    )
    limits = Limits(token_budget=2000, min_round_budget=1500)
    result = Agent(model, tools=[lookup], limits=limits).run_sync("q")
    assert result.outcome == "token_budget" and result.forced
    assert model.requests[-1].tool_choice == "none"
    assert result.usage.total_tokens == 1060


def test_token_budget_can_stop_instead() -> None:
    model = ScriptedModel(
        [ModelResponse(tool_calls=call("lookup", key="a").tool_calls, usage=TokenUsage(1900, 100))]
    )
    limits = Limits(token_budget=2000, on_token_budget="stop")
    result = Agent(model, tools=[lookup], limits=limits).run_sync("q")
    assert result.outcome == "token_budget" and not result.forced and result.output is None


@pytest.mark.parametrize(
    "field", ["max_iterations", "max_validation_attempts", "max_repeated_calls"]
)
def test_limits_reject_nonsense(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        Limits(**{field: 0})  # type: ignore[arg-type]
