"""``docuchat mcp`` over stdio, driven by the official MCP Python client and by the MCP
Inspector's CLI (a client nobody here wrote)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp import types as mcp_types
from mcp.shared.exceptions import MCPError

from mcp_peers import INSPECTOR, requires

from .conftest import SRC, docuchat_mcp

QUESTION = "What was the market value of the Highlands estate?"


def structured(result: mcp_types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def text(result: mcp_types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, mcp_types.TextContent)
    return block.text


async def test_the_owners_documents_as_tools_and_resources(db: Path) -> None:
    async with Client(docuchat_mcp(db, "alice", "--model", "offline")) as client:
        listed = await client.list_tools()
        tools = {t.name: t for t in listed.tools}
        assert set(tools) == {"search_docs", "open_citation", "list_documents", "ask"}
        assert all(t.output_schema and t.output_schema["type"] == "object" for t in tools.values())

        documents = structured(await client.call_tool("list_documents", {}))["documents"]
        assert sorted(d["title"] for d in documents) == [
            "Cottage Lease",
            "Highlands Valuation Report",
        ]

        found = structured(await client.call_tool("search_docs", {"query": "market value estate"}))
        top = found["hits"][0]
        assert top["title"] == "Highlands Valuation Report" and top["page"] == 1

        opened = await client.call_tool(
            "open_citation", {"docId": top["docId"], "chunkId": top["chunkId"]}
        )
        assert "2,300,000 pounds" in structured(opened)["text"]
        # The file's name, as its owner named it: a title may leave out whom it is about.
        assert top["file"] == structured(opened)["file"] == "valuation.md"
        assert text(opened).startswith("Highlands Valuation Report, page 1:")

        asked = await client.call_tool("ask", {"question": QUESTION})
        answer = structured(asked)
        assert answer["outcome"] == "answered" and "2,300,000" in answer["answer"]
        [citation] = answer["citations"]
        assert citation["verified"] and citation["title"] == "Highlands Valuation Report"
        assert citation["page"] == 1 and citation["docId"] == top["docId"]

        resources = (await client.list_resources()).resources
        assert {r.uri for r in resources} == {d["uri"] for d in documents}
        valuation = next(d for d in documents if d["title"] == "Highlands Valuation Report")
        [contents] = (await client.read_resource(valuation["uri"])).contents
        assert isinstance(contents, mcp_types.TextResourceContents)
        # The citation's span points into the resource's text.
        assert contents.text[citation["start"] : citation["end"]] == citation["quote"]
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["docuchat://documents/{docId}"]


async def test_another_owners_documents_stay_out_of_reach(db: Path) -> None:
    async with Client(docuchat_mcp(db, "bob")) as bob:
        [falcon] = structured(await bob.call_tool("list_documents", {}))["documents"]
        assert falcon["title"] == "Project Falcon"
        bobs_hit = structured(await bob.call_tool("search_docs", {"query": "launch date"}))["hits"]
        nothing = structured(await bob.call_tool("search_docs", {"query": "Highlands valuation"}))
        assert all(h["docId"] == falcon["docId"] for h in nothing["hits"])

    async with Client(docuchat_mcp(db, "alice")) as alice:
        foreign = await alice.call_tool(
            "open_citation", {"docId": falcon["docId"], "chunkId": bobs_hit[0]["chunkId"]}
        )
        assert foreign.is_error and "is available to you" in text(foreign)
        with pytest.raises(MCPError, match="No document"):
            await alice.read_resource(falcon["uri"])

        invalid = await alice.call_tool("search_docs", {"query": ""})
        assert invalid.is_error and "Invalid arguments for search_docs: query" in text(invalid)
        extra = await alice.call_tool("list_documents", {"owner": "bob"})
        assert extra.is_error and "owner" in text(extra)
        with pytest.raises(MCPError, match="Unknown tool"):
            await alice.call_tool("delete_everything", {})
        with pytest.raises(MCPError, match="Unknown resource"):
            await alice.read_resource("file:///etc/passwd")


@requires(INSPECTOR)
def test_the_mcp_inspector_cli_lists_and_calls_the_tools(db: Path) -> None:
    server = docuchat_mcp(db, "alice", "--model", "offline")
    env = [arg for k, v in (server.env or {}).items() for arg in ("-e", f"{k}={v}")]

    def inspect(*method: str) -> Any:
        command = [str(INSPECTOR), "--cli", *env, *method, "--", server.command, *server.args]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=SRC)
        assert done.returncode == 0, done.stderr + done.stdout
        return json.loads(done.stdout)

    tools = inspect("--method", "tools/list")["tools"]
    assert [t["name"] for t in tools] == ["search_docs", "open_citation", "list_documents", "ask"]
    asked = inspect(
        "--method", "tools/call", "--tool-name", "ask", "--tool-arg", f"question={QUESTION}"
    )
    assert not asked["isError"]
    assert asked["structuredContent"]["citations"][0]["verified"] is True
    assert (
        "Sources:\n[1] Highlands Valuation Report, page 1 (verified)" in asked["content"][0]["text"]
    )
    resources = inspect("--method", "resources/list")["resources"]
    assert sorted(r["name"] for r in resources) == ["Cottage Lease", "Highlands Valuation Report"]
