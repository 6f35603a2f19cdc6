"""``/mcp``: docuchat's MCP server over streamable HTTP on a real socket, behind the API keys.

Driven by the official MCP Python client, by the MCP Inspector's CLI, and by
docuchat's own MCP tool source (an agent using another docuchat as its tools).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp import types as mcp_types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from docuchat.agent import Agent
from docuchat.agent.mcp import MCPServerConfig, MCPToolbox
from docuchat.config import MCPSettings
from docuchat.models.base import ToolResultsMessage
from docuchat.models.scripted import ScriptedModel, call, reply
from docuchat.server import ServerSettings, create_app
from mcp_peers import INSPECTOR, demo_server, requires

from .conftest import Keys, LiveServer, auth

QUESTION = "What is the market value of the Highlands estate?"


@asynccontextmanager
async def mcp_client(url: str, key: str | None) -> AsyncIterator[Client]:
    headers = auth(key) if key else {}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
    ):
        yield client


def structured(result: mcp_types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def test_a_key_reaches_its_owners_documents(server_url: str, live_keys: Keys) -> None:
    async with mcp_client(server_url, live_keys.alice) as alice:
        documents = structured(await alice.call_tool("list_documents", {}))["documents"]
        assert sorted(d["title"] for d in documents) == ["Highlands Valuation Report", "lease"]
        hits = structured(await alice.call_tool("search_docs", {"query": "market value"}))["hits"]
        assert hits[0]["title"] == "Highlands Valuation Report"
        answer = structured(await alice.call_tool("ask", {"question": QUESTION}))
        assert answer["outcome"] == "answered"
        assert answer["answer"].startswith("The market value of the Highlands estate")
        [citation] = answer["citations"]
        assert citation["verified"] and citation["docId"] == hits[0]["docId"]
        resources = (await alice.list_resources()).resources
        assert {r.name for r in resources} == {"Highlands Valuation Report", "lease"}


async def test_two_users_are_isolated(server_url: str, live_keys: Keys) -> None:
    async with mcp_client(server_url, live_keys.bob) as bob:
        [falcon] = structured(await bob.call_tool("list_documents", {}))["documents"]
        [hit] = structured(await bob.call_tool("search_docs", {"query": "launch date"}))["hits"]
    async with mcp_client(server_url, live_keys.alice) as alice:
        documents = structured(await alice.call_tool("list_documents", {}))["documents"]
        assert falcon["docId"] not in {d["docId"] for d in documents}
        found = structured(await alice.call_tool("search_docs", {"query": "Project Falcon launch"}))
        assert falcon["docId"] not in {h["docId"] for h in found["hits"]}
        foreign = await alice.call_tool(
            "open_citation", {"docId": hit["docId"], "chunkId": hit["chunkId"]}
        )
        assert foreign.is_error
        with pytest.raises(MCPError, match="No document"):
            await alice.read_resource(falcon["uri"])
        resources = (await alice.list_resources()).resources
        assert falcon["uri"] not in {r.uri for r in resources}


@pytest.mark.parametrize("key", [None, "dc_wrong.key", "not a key at all"])
async def test_no_key_or_a_wrong_key_is_refused(server_url: str, key: str | None) -> None:
    headers = {"Accept": "application/json, text/event-stream", **(auth(key) if key else {})}
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    async with httpx.AsyncClient() as http:
        response = await http.post(f"{server_url}/mcp", json=initialize, headers=headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    with pytest.raises(ExceptionGroup) as refused:
        async with mcp_client(server_url, key):
            pass
    assert any(isinstance(e, MCPError) for e in leaves(refused.value))


def leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for e in error.exceptions for leaf in leaves(e)]
    return [error]


async def test_an_agent_uses_docuchat_over_http_as_its_mcp_tools(
    server_url: str, live_keys: Keys
) -> None:
    """The config's ``url`` + ``headers``: another docuchat's /mcp, with Bob's key."""
    config = MCPServerConfig(url=f"{server_url}/mcp", headers=auth(live_keys.bob))
    async with MCPToolbox({"docs": config}) as toolbox:
        model = ScriptedModel([call("search_docs", query="launch date"), reply("9 September")])
        result = await Agent(model, tools=toolbox.tools).run("When is the launch?")
    [found] = [r for m in result.messages if isinstance(m, ToolResultsMessage) for r in m.results]
    assert "Project Falcon" in found.content and "Highlands" not in found.content


@requires(INSPECTOR)
def test_the_mcp_inspector_cli_reaches_mcp_over_http(server_url: str, live_keys: Keys) -> None:
    def inspect(key: str, *method: str) -> subprocess.CompletedProcess[str]:
        target = ["--transport", "http", "--header", f"Authorization: Bearer {key}"]
        command = [str(INSPECTOR), "--cli", f"{server_url}/mcp", *target, *method]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)

    listed = inspect(live_keys.bob, "--method", "resources/list")
    assert listed.returncode == 0, listed.stderr + listed.stdout
    assert [r["name"] for r in json.loads(listed.stdout)["resources"]] == ["Project Falcon"]
    called = inspect(live_keys.bob, "--method", "tools/call", "--tool-name", "list_documents")
    assert called.returncode == 0, called.stderr + called.stdout
    assert (
        json.loads(called.stdout)["structuredContent"]["documents"][0]["title"] == "Project Falcon"
    )
    refused = inspect("dc_wrong.key", "--method", "tools/list")
    assert refused.returncode != 0


async def test_served_mcp_servers_tools_join_every_users_research_run(
    settings: ServerSettings, live_keys: Keys
) -> None:
    servers = MCPSettings(servers={"demo": demo_server()})
    settings = settings.model_copy(update={"mcp": servers})
    model = ScriptedModel([call("shout", text="hello"), reply("HELLO")])
    app = create_app(settings, model=model)
    with LiveServer(app) as url:
        async with httpx.AsyncClient(base_url=url) as http:
            response = await http.post(
                "/api/ask",
                json={"question": "shout", "stream": False},
                headers=auth(live_keys.alice),
            )
    assert response.status_code == 200, response.text
    assert response.json()["answer"] == "HELLO"
    tool_request = model.requests[0]
    assert {"shout", "search_docs", "read_document"} <= {t.name for t in tool_request.tools}
