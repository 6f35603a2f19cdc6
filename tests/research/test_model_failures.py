"""What the research agent does not accept from a model, and what it answers instead; and the
context window it holds every run to."""

from __future__ import annotations

import json
from typing import Any

from docuchat.agent import Limits
from docuchat.errors import ContextOverflow, ModelHTTPError
from docuchat.models import ScriptedModel
from docuchat.models.base import (
    ModelRequest,
    ModelResponse,
    ToolResultsMessage,
    UserMessage,
    UseTool,
)
from docuchat.models.scripted import call, calls, reply
from docuchat.models.window import ContextWindow
from docuchat.research import ResearchAgent
from docuchat.research.agent import NO_SEARCH
from docuchat.research.offline.answer import PREFIX
from docuchat.research.prompts import SEARCH_FIRST_PROMPT
from docuchat.search.hybrid import HybridSearcher

ROOF = "The roof of the main house was replaced in 2019 and is in good condition [1]."


def _open_first_hit(request: ModelRequest) -> ModelResponse:
    message = request.messages[-1]
    assert isinstance(message, ToolResultsMessage)
    hit = json.loads(message.results[0].content)["hits"][0]
    return call("open_citation", docId=hit["docId"], chunkId=hit["chunkId"])


def _agent(searcher: HybridSearcher, steps: list[Any], **kwargs: Any) -> ResearchAgent:
    return ResearchAgent(searcher, ScriptedModel(steps), owner="alice", **kwargs)


def _model(agent: ResearchAgent) -> ScriptedModel:
    assert isinstance(agent.model, ScriptedModel)
    return agent.model


def test_an_answer_without_a_search_gets_one_reminder_that_forces_a_search(
    searcher: HybridSearcher,
) -> None:
    agent = _agent(
        searcher,
        [
            reply("The roof is new."),
            call("search_docs", query="roof"),
            _open_first_hit,
            reply(ROOF),
        ],
    )
    answer = agent.ask_sync("What condition is the roof in?")
    assert answer.outcome == "answered" and answer.reminded and not answer.fallback
    assert answer.citations[0].verified and len(answer.runs) == 2
    reminder_call = _model(agent).requests[1]
    assert reminder_call.tool_choice == UseTool("search_docs")
    reminder = reminder_call.messages[-1]
    assert isinstance(reminder, UserMessage) and reminder.origin == "runtime"
    assert reminder.content == SEARCH_FIRST_PROMPT
    assert [r.tool_choice for r in _model(agent).requests[2:]] == ["auto", "auto"]
    assert answer.to_dict()["reminded"] is True


def test_a_model_that_never_searches_gets_the_pipeline(searcher: HybridSearcher) -> None:
    agent = _agent(searcher, [reply("The roof is new."), reply("Still new."), reply(ROOF)])
    answer = agent.ask_sync("What condition is the roof in?")
    assert answer.fallback and answer.mode == "pipeline" and answer.reminded
    assert answer.fallback_reason == NO_SEARCH
    assert answer.citations[0].verified
    assert [len(r.events) > 0 for r in answer.runs] == [True, True, True]
    assert answer.failed_run is answer.runs[1]
    total = answer.to_dict()["total_usage"]
    assert total["model_calls"] == 3 and answer.to_dict()["usage"]["model_calls"] == 1


def test_a_model_error_after_opening_passages_gives_the_extractive_answer(
    searcher: HybridSearcher,
) -> None:
    agent = _agent(
        searcher,
        [call("search_docs", query="roof"), _open_first_hit, ModelHTTPError(500, "overloaded")],
        limits=Limits(max_iterations=5, timeout=60),
    )
    answer = agent.ask_sync("What condition is the roof in?")
    assert answer.extractive and answer.fallback and answer.mode == "agent"
    assert answer.fallback_reason.startswith("model_error: HTTP 500: overloaded")
    assert answer.answer.startswith(PREFIX.strip())
    assert answer.citations and all(c.verified for c in answer.citations)
    assert answer.run.outcome == "answered" and answer.failed_run is not None
    _model(agent).assert_all_consumed()  # the failing model was not asked again


def test_a_protocol_failure_after_opening_passages_is_not_taken_from_the_model(
    searcher: HybridSearcher,
) -> None:
    garbage = ModelResponse(text="TOOL_CALL {nonsense", finish_reason="protocol_error")
    agent = _agent(
        searcher,
        [call("search_docs", query="roof"), _open_first_hit, garbage, reply("Only report...")],
    )
    answer = agent.ask_sync("What condition is the roof in?")
    assert answer.failed_run is not None and answer.failed_run.outcome == "invalid_response"
    assert answer.failed_run.forced  # the forced synthesis answered, but is not kept
    assert answer.extractive and answer.answer.startswith(PREFIX.strip())
    assert "Only report" not in answer.answer


def test_a_context_overflow_after_opening_passages(searcher: HybridSearcher) -> None:
    overflow = ContextOverflow(400, "maximum context length is 2048 tokens", context_window=2048)
    agent = _agent(searcher, [call("search_docs", query="roof"), _open_first_hit, overflow])
    answer = agent.ask_sync("What condition is the roof in?")
    assert answer.extractive and answer.fallback_reason.startswith("context_overflow: HTTP 400")
    assert answer.failed_run is not None
    assert answer.failed_run.error_context["context_window"] == 2048


def test_the_pipeline_quotes_its_passages_when_its_model_fails(searcher: HybridSearcher) -> None:
    agent = _agent(searcher, [ModelHTTPError(400, "bad request")], mode="pipeline")
    answer = agent.ask_sync("What condition is the roof in?")
    assert answer.extractive and answer.mode == "pipeline"
    assert answer.fallback_reason.startswith("model_error: HTTP 400: bad request")
    assert answer.citations and answer.citations[0].verified


def test_a_model_error_before_any_passage_still_falls_back_to_the_pipeline(
    searcher: HybridSearcher,
) -> None:
    agent = _agent(searcher, [ModelHTTPError(500, "overloaded"), reply(ROOF)])
    answer = agent.ask_sync("What condition is the roof in?")
    assert answer.fallback and not answer.extractive and answer.mode == "pipeline"
    assert answer.citations[0].verified


class _WindowedModel(ScriptedModel):
    """A scripted model whose server reports a 2,048-token window."""

    async def context_window(self) -> ContextWindow:
        return ContextWindow(2048, "llama.cpp /props n_ctx")


def test_every_run_is_held_to_the_models_window(searcher: HybridSearcher) -> None:
    steps = [call("search_docs", query="roof"), _open_first_hit, reply(ROOF)]
    model = _WindowedModel(steps)
    answer = ResearchAgent(searcher, model, owner="alice").ask_sync("Roof condition?")
    limits = answer.run.events[0].limits  # type: ignore[attr-defined]
    assert (limits["context_window"], limits["min_round_budget"]) == (2048, 512)
    assert {r.max_output_tokens for r in model.requests} == {512}
    assert answer.to_dict()["context_window"] == {
        "tokens": 2048,
        "source": "llama.cpp /props n_ctx",
    }
    configured = ResearchAgent(searcher, _WindowedModel(steps), owner="alice", context_window=8192)
    assert configured.ask_sync("Roof condition?").to_dict()["context_window"] == {
        "tokens": 8192,
        "source": "configured",
    }
    unknown = _agent(searcher, list(steps)).ask_sync("Roof condition?")
    assert unknown.context_window is None and unknown.model == "scripted"


def test_whole_answers_send_no_text_deltas(searcher: HybridSearcher) -> None:
    steps = [call("search_docs", query="roof"), _open_first_hit, reply(ROOF)]
    answer = _agent(searcher, steps).ask_sync("Roof condition?", stream_text=False)
    assert not [e for e in answer.run.events if e.type == "text_delta"]
    streamed = _agent(searcher, list(steps)).ask_sync("Roof condition?")
    assert [e for e in streamed.run.events if e.type == "text_delta"]


def test_a_window_the_server_told_holds_the_pipeline_and_later_questions(
    searcher: HybridSearcher,
) -> None:
    # The server's window (1,024) is smaller than the model reported (2,048): the agent's run
    # overflows before reading anything; the pipeline is then held to 1,024.
    overflow = ContextOverflow(400, "maximum context length is 1024 tokens", context_window=1024)
    steps: list[Any] = [call("search_docs", query="roof"), overflow, reply(ROOF), reply(ROOF)]
    agent = ResearchAgent(searcher, _WindowedModel(steps), owner="alice")
    answer = agent.ask_sync("What condition is the roof in?")
    assert answer.fallback and answer.mode == "pipeline" and answer.citations[0].verified
    learned = ContextWindow(1024, "the server's context-overflow message")
    assert answer.context_window == learned
    assert _model(agent).requests[-1].max_output_tokens == 256
    later = agent.ask_sync("What condition is the roof in?", stream_text=False)
    assert later.context_window == learned


def test_the_extractive_answer_reads_passages_evicted_from_the_transcript(
    searcher: HybridSearcher,
) -> None:
    def open_all(request: ModelRequest) -> ModelResponse:
        message = request.messages[-1]
        assert isinstance(message, ToolResultsMessage)
        hits = json.loads(message.results[0].content)["hits"]
        hits.sort(key=lambda hit: hit["title"] != "Highlands Valuation Report")  # it first
        pairs = [("open_citation", {"docId": h["docId"], "chunkId": h["chunkId"]}) for h in hits]
        return calls(*pairs[:4])

    # Four passages open at once; only the last three stay in full (the valuation, opened
    # first, becomes a stub), then the model fails.
    steps = [call("search_docs", query="estate"), open_all, ModelHTTPError(500, "overloaded")]
    answer = _agent(searcher, steps).ask_sync("What was the market value of the Highlands estate?")
    assert answer.failed_run is not None
    evicted = [e for e in answer.failed_run.events if e.type == "context_evicted"]
    assert evicted and evicted[0].reason == "retention"
    assert answer.extractive and "2,300,000 pounds" in answer.answer
    assert answer.citations[0].n == 1 and answer.citations[0].verified
