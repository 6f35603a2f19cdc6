"""What a run learns and sends about the model: its window, an answer cap, a forced first
tool, a server's context overflow, and usage the server did not report."""

from __future__ import annotations

from docuchat.agent import Agent, Limits, tool
from docuchat.errors import ContextOverflow
from docuchat.models.base import ModelResponse, TokenUsage, ToolResultsMessage, UseTool
from docuchat.models.scripted import ScriptedModel, call, reply
from docuchat.models.tokens import TokenEstimator


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


def test_a_small_window_keeps_a_quarter_free_and_caps_answers_there() -> None:
    small = Limits().with_context_window(2048)
    assert (small.context_window, small.min_round_budget, small.max_output_tokens) == (
        2048,
        512,
        512,
    )
    large = Limits().with_context_window(128_000)
    assert (large.min_round_budget, large.max_output_tokens) == (1500, None)
    assert Limits(max_output_tokens=64).with_context_window(2048).max_output_tokens == 64


async def test_the_answer_cap_and_a_forced_first_tool_reach_the_model() -> None:
    model = ScriptedModel([call("lookup", key="a"), reply("done")])
    agent: Agent[str] = Agent(model, tools=[lookup], limits=Limits(max_output_tokens=100))
    result = await agent.run("go", first_tool_choice=UseTool("lookup"))
    assert result.output == "done"
    first, second = model.requests
    assert first.tool_choice == UseTool("lookup") and second.tool_choice == "auto"
    assert first.max_output_tokens == second.max_output_tokens == 100


async def test_a_streamed_run_can_take_whole_answers() -> None:
    model = ScriptedModel([reply("one two three")])
    stream = Agent(model).stream("go", stream_text=False)
    events = [event async for event in stream]
    assert stream.result.output == "one two three"
    assert not [e for e in events if e.type == "text_delta"]
    streamed = Agent(ScriptedModel([reply("one two three")])).stream("go")
    assert [e.type async for e in streamed].count("text_delta") == 3


async def test_a_context_overflow_is_its_own_outcome_with_the_servers_figures() -> None:
    message = "This model's maximum context length is 2048 tokens. However, you requested 2530"
    overflow = ContextOverflow(400, message, context_window=2048, prompt_tokens=2510)
    result = await Agent(ScriptedModel([overflow])).run("go")
    assert (result.outcome, result.error_code, result.output) == (
        "context_overflow",
        "CONTEXT_OVERFLOW",
        None,
    )
    assert result.reason == f"HTTP 400: {message}"
    assert result.error_context["context_window"] == 2048
    assert result.error_context["prompt_tokens"] == 2510


async def test_usage_the_server_did_not_report_is_estimated_and_marked() -> None:
    unreported = ModelResponse(text="an answer of some words", finish_reason="stop")
    # Neither step carries usage, like llama-cpp-python's streamed answers.
    model = ScriptedModel([call("lookup", key="a"), unreported], usage=None)
    result = await Agent(model, tools=[lookup]).run("a question")
    calls = result.usage.model_calls
    assert [c.reported for c in calls] == [False, False]
    assert all(c.input_tokens > 0 for c in calls) and calls[1].output_tokens > 0
    assert result.usage.estimated_calls == 2
    assert result.usage.as_dict()["estimated_calls"] == 2


@tool
def fetch(page: int) -> str:
    """Fetch a long page."""
    return f"page {page}: " + "lorem ipsum " * 400  # about 1,700 tokens


async def test_eviction_makes_room_for_the_next_round_not_just_the_request() -> None:
    # A 4,000-token window with 1,000 kept free per round: both pages fit the window but not
    # the round's room, so the first is evicted and the run goes on instead of stopping.
    model = ScriptedModel([call("fetch", page=1), call("fetch", page=2), reply("done")])
    limits = Limits().with_context_window(4000)
    result = await Agent(model, tools=[fetch], limits=limits).run("read both pages")
    assert (result.outcome, result.output, result.forced) == ("answered", "done", False)
    evicted = [e for e in result.events if e.type == "context_evicted"]
    assert len(evicted) == 1 and evicted[0].tokens_after <= 4000 - limits.min_round_budget


def test_a_bounded_argument_reaches_the_schema() -> None:
    from docuchat.research.tools import QUERY_CHARS, search_docs

    assert search_docs.parameters["properties"]["query"]["maxLength"] == QUERY_CHARS


async def test_the_forced_synthesis_is_fitted_to_the_window_too() -> None:
    # The last iteration's page arrives after the gate; the synthesis must not send both.
    model = ScriptedModel([call("fetch", page=1), call("fetch", page=2), reply("from page 2")])
    limits = Limits(max_iterations=2, on_max_iterations="synthesize").with_context_window(4000)
    result = await Agent(model, tools=[fetch], limits=limits).run("read both pages")
    assert (result.outcome, result.forced, result.output) == ("max_iterations", True, "from page 2")
    synthesis = model.requests[-1]
    pages = [r for m in synthesis.messages if isinstance(m, ToolResultsMessage) for r in m.results]
    assert [r.content.startswith("page") for r in pages] == [False, True]  # page 1 is a stub


def _overflow(prompt_tokens: int | None) -> ContextOverflow:
    message = f"request ({prompt_tokens} tokens) exceeds the available context size (4000 tokens)"
    return ContextOverflow(400, message, context_window=4000, prompt_tokens=prompt_tokens)


async def test_an_overflow_the_server_counted_is_learned_from_and_tried_once_more() -> None:
    # The estimate said page 1 fits; the server counted 5,000 tokens. The run learns that
    # count, evicts page 1 and asks again, instead of ending.
    model = ScriptedModel([call("fetch", page=1), _overflow(5000), reply("done")])
    limits = Limits().with_context_window(4000)
    result = await Agent(model, tools=[fetch], limits=limits).run("read the page")
    assert (result.outcome, result.output) == ("answered", "done")
    retried = model.requests[-1]
    pages = [r for m in retried.messages if isinstance(m, ToolResultsMessage) for r in m.results]
    assert not pages[0].content.startswith("page")  # evicted
    assert [e.type for e in result.events].count("model_request") == 3


async def test_an_overflow_that_cannot_be_helped_ends_the_run() -> None:
    twice = ScriptedModel([call("fetch", page=1), _overflow(5000), _overflow(4500)])
    limits = Limits().with_context_window(4000)
    result = await Agent(twice, tools=[fetch], limits=limits).run("read the page")
    assert (result.outcome, result.error_context["prompt_tokens"]) == ("context_overflow", 4500)
    uncounted = ScriptedModel([call("fetch", page=1), _overflow(None)])
    result = await Agent(uncounted, tools=[fetch], limits=limits).run("read the page")
    assert result.outcome == "context_overflow" and len(uncounted.requests) == 2


async def test_a_smaller_window_the_server_tells_is_used_from_then_on() -> None:
    told = ContextOverflow(400, "maximum context length is 2000 tokens", context_window=2000)
    told.prompt_tokens = 2400
    model = ScriptedModel([call("fetch", page=1), told, reply("done")])
    limits = Limits().with_context_window(4000)  # assumed; the server has 2,000
    result = await Agent(model, tools=[fetch], limits=limits).run("read the page")
    assert result.output == "done"
    assert model.requests[-1].max_output_tokens == 500  # a quarter of the server's window


class _Calibrating(ScriptedModel):
    """A scripted model with an estimator the loop calibrates, as real adapters have."""

    def __init__(self, steps: list[ModelResponse]) -> None:
        super().__init__(steps)
        self.token_estimator = TokenEstimator()


async def test_usage_of_several_provider_calls_does_not_calibrate_the_estimate() -> None:
    # The text protocol's reminder: two prompts' tokens in one response's usage.
    reminded = ModelResponse(text="ok", usage=TokenUsage(9000, 10), requests=2)
    model = _Calibrating([reminded])
    await Agent(model).run("go")
    assert model.token_estimator.observations == 0
    single = _Calibrating([ModelResponse(text="ok", usage=TokenUsage(90, 10))])
    await Agent(single).run("go")
    assert single.token_estimator.observations == 1
