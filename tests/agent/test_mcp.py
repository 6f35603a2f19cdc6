"""Tools from a real MCP server over stdio are routed like local ones."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from docuchat.agent import Agent, tool
from docuchat.agent.mcp import mcp_stdio_tools
from docuchat.models import ScriptedModel
from docuchat.models.base import ToolResultsMessage
from docuchat.models.scripted import calls, reply

SERVER = str(Path(__file__).with_name("mcp_demo_server.py"))


@tool
def local_double(n: int) -> int:
    """Double n locally."""
    return 2 * n


async def test_mcp_tools_mix_with_local_tools_and_errors_reach_the_model() -> None:
    async with mcp_stdio_tools(sys.executable, [SERVER], prefix="demo_") as tools:
        names = {t.name for t in tools}
        assert {"demo_add", "demo_shout", "demo_fail"} <= names
        add = next(t for t in tools if t.name == "demo_add")
        assert add.parameters["required"] == ["a", "b"]
        model = ScriptedModel(
            [
                calls(
                    ("demo_add", {"a": 2, "b": 40}),
                    ("local_double", {"n": 21}),
                    ("demo_shout", {"text": "quiet"}),
                    ("demo_fail", {"reason": "disk on fire"}),
                    ("demo_add", {"a": "two"}),
                ),
                reply("done"),
            ]
        )
        result = await Agent(model, tools=[*tools, local_double]).run("q")
    assert result.outcome == "answered"
    results = result.messages[2]
    assert isinstance(results, ToolResultsMessage)
    contents = [r.content for r in results.results]
    assert contents[:3] == ["42", "42", "QUIET"]
    assert results.results[3].is_error and "disk on fire" in contents[3]
    assert results.results[4].is_error and "Invalid arguments for tool 'demo_add'" in contents[4]
    codes = {e.call_id: e.error_code for e in result.events if e.type == "tool_call_finished"}
    in_call_order = [codes[r.call_id] for r in results.results]
    assert in_call_order == [None, None, None, "TOOL_EXCEPTION", "INVALID_ARGUMENTS"]


REFERENCE_SERVER = (
    Path(__file__).parents[2] / ".cache" / "npm" / "node_modules" / ".bin" / "mcp-server-everything"
)


@pytest.mark.skipif(
    not REFERENCE_SERVER.exists(), reason="run `make system-deps` to install the npm MCP server"
)
async def test_the_npm_reference_server_works_through_the_loop() -> None:
    async with mcp_stdio_tools(str(REFERENCE_SERVER), ["stdio"]) as tools:
        model = ScriptedModel(
            [calls(("echo", {"message": "hello"}), ("get-sum", {"a": 2, "b": 3})), reply("ok")]
        )
        result = await Agent(model, tools=tools).run("q")
    results = result.messages[2]
    assert isinstance(results, ToolResultsMessage)
    assert results.results[0].content == "Echo: hello"
    assert "5" in results.results[1].content and not results.results[1].is_error
