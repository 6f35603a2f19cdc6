"""Seed 002's research controls: read_multiple_documents, detail levels, a question's limits
within maxima, the models allowed and the agent bar, and follow-ups in the pipeline."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from docuchat.agent import ToolCallFinished
from docuchat.agent.context import is_stub
from docuchat.config import ResearchConfig
from docuchat.errors import ConfigError
from docuchat.models import ScriptedModel
from docuchat.models.base import (
    AssistantMessage,
    ModelRequest,
    ModelResponse,
    ToolResultsMessage,
    UserMessage,
)
from docuchat.models.scripted import call, reply
from docuchat.research import ResearchAgent
from docuchat.research.agent import DEFAULT_LIMITS
from docuchat.research.configured import configured_agent
from docuchat.research.detail import DETAILS, QuestionLimits, ResearchControls, question_seconds
from docuchat.research.followup import is_follow_up, search_query
from docuchat.research.tools import DocumentsRead
from docuchat.search.hybrid import HybridSearcher

from .test_research_agent import _last_results


def _doc_ids(searcher: HybridSearcher, owner: str = "alice") -> dict[str, str]:
    return {d.title: d.id for d in searcher.store.list_documents(owner)}


def _finished(events: Any, name: str) -> list[ToolCallFinished]:
    return [e for e in events if isinstance(e, ToolCallFinished) and e.name == name]


def test_read_multiple_documents_numbers_each_passage_and_names_what_it_could_not_read(
    searcher: HybridSearcher,
) -> None:
    ids = _doc_ids(searcher)
    foreign = _doc_ids(searcher, "bob")["Bob's Secret Plan"]
    wanted = [ids["Highlands Valuation Report"], foreign, ids["Cottage Lease"], "nope"]

    def answer(request: ModelRequest) -> ModelResponse:
        read = _last_results(request)[0]
        assert [p["citation"] for p in read["passages"]] == [1, 2]
        assert read["unavailable"] == [foreign] and read["not_read"] == ["nope"]
        assert "Project Falcon" not in json.dumps(read)
        return reply("The annual rent of the east cottage is 14,400 pounds [2].")

    model = ScriptedModel(
        [call("read_multiple_documents", docIds=wanted, focus_query="rent"), answer]
    )
    agent = ResearchAgent(searcher, model, owner="alice", rich_tools=True)

    result = agent.ask_sync("What is the cottage's rent?")

    [finished] = _finished(result.events, "read_multiple_documents")
    assert isinstance(finished.value, DocumentsRead)
    assert finished.output_summary == (
        "Read 2 documents: [1] Highlands Valuation Report, [2] Cottage Lease; 2 not read"
    )
    assert [(c.n, c.title, c.verified) for c in result.citations] == [(2, "Cottage Lease", True)]


def test_detail_levels_set_results_characters_and_passages_kept_open(
    searcher: HybridSearcher,
) -> None:
    opened: dict[str, list[int]] = {}
    for level in ("brief", "detailed"):
        agent = ResearchAgent(
            searcher,
            ScriptedModel([reply("x")]),
            owner="alice",
            mode="pipeline",
            detail=DETAILS[level],
        )
        result = agent.ask_sync("the estate")
        [search] = _finished(result.events, "search_docs")
        opens = _finished(result.events, "open_citation")
        assert len(search.value.hits) <= DETAILS[level].search_results
        opened[level] = [len(o.value.text) for o in opens]
    assert len(opened["brief"]) == DETAILS["brief"].keep_open == 2
    assert len(opened["detailed"]) == 4  # every passage found: fewer than the 6 it may keep
    assert max(opened["brief"]) <= DETAILS["brief"].passage_chars


def test_older_passages_become_stubs_past_the_detail_levels_count(
    searcher: HybridSearcher,
) -> None:
    hits = searcher.search("alice", "the estate", k=3)
    opens = [call("open_citation", docId=h.doc_id, chunkId=h.chunk_id) for h in hits]
    model = ScriptedModel([*opens, reply("Done.")])
    agent = ResearchAgent(searcher, model, owner="alice", detail=DETAILS["brief"])

    agent.ask_sync("Tell me about the estate.")

    results = [
        result
        for message in model.requests[-1].messages
        if isinstance(message, ToolResultsMessage)
        for result in message.results
    ]
    in_full = [is_stub(result) is False for result in results]
    assert in_full == [False, True, True]  # brief keeps the last 2 passages open


def test_a_questions_limits_override_the_level_within_the_maxima() -> None:
    brief = ResearchControls(detail="brief")
    assert (
        brief.run_limits(DEFAULT_LIMITS).max_tool_calls,
        brief.run_limits(DEFAULT_LIMITS).max_iterations,
    ) == (3, 4)

    asked = brief.overridden(limits=QuestionLimits(max_tool_calls=40, timeout=900))
    capped = asked.run_limits(DEFAULT_LIMITS, QuestionLimits(20, 8, 300))
    # The whole question's time (research, then a synthesis in one model call's time).
    assert (capped.max_tool_calls, capped.max_iterations, question_seconds(capped)) == (20, 4, 300)
    assert (capped.timeout, capped.synthesis_grace) == (270, 30)
    detailed = ResearchControls(detail="detailed").run_limits(DEFAULT_LIMITS, QuestionLimits(6))
    assert detailed.max_tool_calls == 6  # a level's own figure is capped too

    configured = ResearchControls.of(ResearchConfig(detail="detailed", max_tool_calls=7))
    assert configured.overridden(detail="brief").limits.max_tool_calls == 7


def test_models_allowed_and_the_agent_bar(searcher: HybridSearcher) -> None:
    config = ResearchConfig(
        models_allowed=("offline", "openai:small", "openai:large"),
        min_model_for_agent="openai:small",
    )
    build = {
        "searcher": searcher,
        "model": ScriptedModel([reply("x")]),
        "owner": "alice",
        "mode": "agent",
        "controls": ResearchControls(),
        "config": config,
    }
    with pytest.raises(ConfigError, match="not in \\[research\\] models_allowed"):
        configured_agent(model_spec="anthropic:other", **build)
    assert configured_agent(model_spec="openai:large", **build).mode == "agent"

    weak = configured_agent(model_spec="offline", **build)
    answer = weak.ask_sync("the estate")
    assert (answer.mode, weak.mode) == ("pipeline", "pipeline")
    assert answer.mode_reason == (
        "offline is below min_model_for_agent (openai:small): the fixed pipeline answered"
    )
    assert answer.to_dict()["mode_reason"] == answer.mode_reason
    with pytest.raises(ValidationError, match="min_model_for_agent must be one of"):
        ResearchConfig(min_model_for_agent="openai:small")


HIGHLANDS = "What is the market value of the Highlands estate?"


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("and what about Brightline?", "Brightline market value estate"),
        ("When was it valued?", "valued market value Highlands estate"),
        ("What is the annual rent of the east cottage?", None),  # a question of its own
    ],
)
def test_a_follow_ups_search_carries_the_earlier_subject(question: str, query: str | None) -> None:
    history = [UserMessage(HIGHLANDS), AssistantMessage("2,300,000 pounds [1].")]
    assert search_query(question, history) == (query or question)
    assert search_query(question, []) == question
    assert is_follow_up(question) is (query is not None)


def test_the_pipeline_searches_a_follow_up_with_the_conversation(
    searcher: HybridSearcher,
) -> None:
    history = [
        UserMessage("When was the roof of the main house replaced?"),
        AssistantMessage("In 2019 [1]."),
    ]
    agent = ResearchAgent(searcher, ScriptedModel([reply("x")]), owner="alice", mode="pipeline")

    answer = agent.ask_sync("And its condition?", history=history)

    [search] = _finished(answer.events, "search_docs")
    assert search.input == {"query": "condition roof main house replaced"}
    assert search.value.hits[0].title == "Highlands Valuation Report"
