"""Each research tool presents itself: the action and messages every consumer shows come
from the tool and its typed value, never from matching its name or its JSON."""

from __future__ import annotations

from typing import Any

from docuchat.agent import ToolCallFinished, ToolCallStarted
from docuchat.models import ScriptedModel
from docuchat.models.base import ModelRequest, ModelResponse, ToolResultsMessage
from docuchat.models.scripted import call, reply
from docuchat.research import OpenedPassage, ResearchAgent, SearchResults
from docuchat.research.tools import DocumentOverview
from docuchat.search.hybrid import HybridSearcher


def _found(request: ModelRequest) -> SearchResults:
    message = request.messages[-1]
    assert isinstance(message, ToolResultsMessage)
    value = message.results[0].value
    assert isinstance(value, SearchResults)
    return value


def _every_tool(request: ModelRequest) -> ModelResponse:
    hit = _found(request).hits[0]
    return ModelResponse(
        tool_calls=(
            *call("open_citation", docId=hit.doc_id, chunkId=hit.chunk_id).tool_calls,
            *call("read_document", docId=hit.doc_id, focus_query="rent").tool_calls,
            *call("get_document_summary", docId=hit.doc_id).tool_calls,
        )
    )


def _steps(searcher: HybridSearcher) -> tuple[list[ToolCallStarted], list[ToolCallFinished]]:
    model = ScriptedModel(
        [call("search_docs", query="annual rent cottage"), _every_tool, reply("Done [1].")]
    )
    agent = ResearchAgent(searcher, model, owner="alice", rich_tools=True)
    answer = agent.ask_sync("What is the rent?")
    events: list[Any] = list(answer.run.events)
    return (
        [e for e in events if isinstance(e, ToolCallStarted)],
        [e for e in events if isinstance(e, ToolCallFinished)],
    )


def test_each_tool_names_its_action_and_describes_its_call(searcher: HybridSearcher) -> None:
    started, _ = _steps(searcher)
    assert [(e.name, e.action, e.message) for e in started] == [
        ("search_docs", "searching", "Searching for: annual rent cottage"),
        ("open_citation", "reading", "Reading a passage of Cottage Lease"),
        ("read_document", "reading", "Reading Cottage Lease"),
        ("get_document_summary", "summarising", "Summarising Cottage Lease"),
    ]


def test_each_result_is_a_typed_value_with_its_own_summary(searcher: HybridSearcher) -> None:
    _, finished = _steps(searcher)
    search, opened, read, overview = (e.value for e in finished)
    assert isinstance(search, SearchResults) and search.hits
    assert isinstance(opened, OpenedPassage) and isinstance(read, OpenedPassage)
    assert isinstance(overview, DocumentOverview) and overview.title == "Cottage Lease"
    assert [e.output_summary for e in finished] == [
        search.summary(),
        f"Read [1] Cottage Lease, page {opened.page}",
        f"Read [{read.citation}] Cottage Lease, page {read.page}",
        "Summarised Cottage Lease (1 page)",
    ]
    assert all(e.output == e.value.for_model() for e in finished)


def test_an_unknown_document_is_described_without_guessing(searcher: HybridSearcher) -> None:
    model = ScriptedModel([call("get_document_summary", docId="nope"), reply("No.")])
    agent = ResearchAgent(searcher, model, owner="alice", rich_tools=True)
    answer = agent.ask_sync("Summarise it.")
    first = answer.runs[0]  # it answered without searching: later runs follow
    started = next(e for e in first.events if isinstance(e, ToolCallStarted))
    finished = next(e for e in first.events if isinstance(e, ToolCallFinished))
    assert started.message == "Summarising a document"
    assert not finished.ok and finished.value is None
