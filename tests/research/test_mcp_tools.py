"""The research agent with two npm MCP servers' tools beside its own, in one run; a server
killed mid-run costs the model an error result and the run still answers with citations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docuchat.agent.mcp import MCPServerConfig, MCPToolbox
from docuchat.models.base import ModelRequest, ModelResponse, ToolResultsMessage
from docuchat.models.scripted import ScriptedModel, call, calls, reply
from docuchat.research import OWN_TOOL_NAMES, ResearchAgent
from docuchat.search.hybrid import HybridSearcher
from mcp_peers import EVERYTHING, MEMORY, kill_child, memory_server, requires


def opened_passage(request: ModelRequest) -> dict[str, object]:
    results = [r for m in request.messages if isinstance(m, ToolResultsMessage) for r in m.results]
    found: dict[str, object] = json.loads(
        next(r for r in results if r.name == "search_docs").content
    )
    return found["hits"][0]  # type: ignore[index,no-any-return]


@requires(EVERYTHING, MEMORY)
async def test_two_mcp_servers_tools_join_a_research_run_and_a_killed_one_leaves_it_answering(
    searcher: HybridSearcher, tmp_path: Path
) -> None:
    servers = {
        "everything": MCPServerConfig(command=str(EVERYTHING), args=("stdio",)),
        "memory": memory_server(tmp_path),
    }

    def open_and_remember(request: ModelRequest) -> ModelResponse:
        hit = opened_passage(request)
        entity = {"name": "Highlands", "entityType": "estate", "observations": ["valued"]}
        return calls(
            ("open_citation", {"docId": hit["docId"], "chunkId": hit["chunkId"]}),
            ("create_entities", {"entities": [entity]}),
            ("echo", {"message": "noted"}),
        )

    def kill_memory_then_recall(_: ModelRequest) -> ModelResponse:
        kill_child(str(MEMORY))
        return call("search_nodes", query="Highlands")

    async with MCPToolbox(servers, reserved=OWN_TOOL_NAMES) as toolbox:
        model = ScriptedModel(
            [
                call("search_docs", query="market value of the Highlands estate"),
                open_and_remember,
                kill_memory_then_recall,
                reply("The estate was assessed at 2,300,000 pounds in February 2024 [1]."),
            ]
        )
        agent = ResearchAgent(
            searcher, model, owner="alice", rich_tools=True, extra_tools=toolbox.tools
        )
        answer = await agent.ask("What is the Highlands estate worth?")
    assert answer.outcome == "answered" and not answer.fallback
    assert [c.verified for c in answer.citations] == [True]
    results = {
        r.name: r for m in answer.messages if isinstance(m, ToolResultsMessage) for r in m.results
    }
    assert "Highlands" in results["create_entities"].content
    assert results["echo"].content == "Echo: noted"
    assert results["search_nodes"].is_error
    assert "MCP server 'memory'" in results["search_nodes"].content
    assert {"create_entities", "echo", "search_docs"} <= {t.name for t in model.requests[0].tools}


def test_extra_tools_need_the_rich_set(searcher: HybridSearcher) -> None:
    with pytest.raises(ValueError, match="rich tool set"):
        ResearchAgent(searcher, ScriptedModel([]), owner="alice", extra_tools=(object(),))  # type: ignore[arg-type]
