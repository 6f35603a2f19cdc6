"""MCP servers as tools: real servers (the official SDK's, the npm reference servers) over
stdio and streamable HTTP, routed by one table, and runs that survive a server's death."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from docuchat.agent import Agent, tool
from docuchat.agent.mcp import MCPServerConfig, MCPToolbox, MCPToolResult, Route, route_tools
from docuchat.errors import MCPServerError
from docuchat.models import ScriptedModel
from docuchat.models.base import ModelRequest, ModelResponse, ToolResult, ToolResultsMessage
from docuchat.models.scripted import call, calls, reply
from mcp_peers import (
    EVERYTHING,
    MEMORY,
    children,
    demo_server,
    everything_over_http,
    kill_child,
    memory_server,
    requires,
)


@tool
def local_double(n: int) -> int:
    """Double n locally."""
    return 2 * n


def results_of(messages: tuple[object, ...]) -> list[ToolResult]:
    return [r for m in messages if isinstance(m, ToolResultsMessage) for r in m.results]


# -- the routing table -------------------------------------------------------------------


def test_names_keep_their_own_name_unless_two_servers_or_a_local_tool_share_it() -> None:
    table = route_tools(
        {"a": ["add", "search_docs", "only.a"], "b": ["add", "shout"]}, reserved={"search_docs"}
    )
    assert table == {
        "a_add": Route("a", "add"),
        "a_search_docs": Route("a", "search_docs"),
        "only_a": Route("a", "only.a"),
        "b_add": Route("b", "add"),
        "shout": Route("b", "shout"),
    }


def test_a_name_still_taken_after_prefixing_is_a_typed_error() -> None:
    with pytest.raises(MCPServerError, match="two tools would be named 'a_x'"):
        route_tools({"a": ["x", "a_x"], "b": ["x"]})


# -- a Python MCP server (official SDK) ------------------------------------------------


async def test_mcp_tools_mix_with_local_tools_and_errors_reach_the_model() -> None:
    async with MCPToolbox({"demo": demo_server()}) as toolbox:
        names = {t.name for t in toolbox.tools}
        assert {"add", "shout", "fail", "hang"} <= names
        add = next(t for t in toolbox.tools if t.name == "add")
        assert add.parameters["required"] == ["a", "b"]
        model = ScriptedModel(
            [
                calls(
                    ("add", {"a": 2, "b": 40}),
                    ("local_double", {"n": 21}),
                    ("shout", {"text": "quiet"}),
                    ("fail", {"reason": "disk on fire"}),
                    ("add", {"a": "two"}),
                ),
                reply("done"),
            ]
        )
        result = await Agent(model, tools=[*toolbox.tools, local_double]).run("q")
    assert result.outcome == "answered"
    results = results_of(result.messages)
    contents = [r.content for r in results]
    assert contents[:3] == ["42", "42", "QUIET"]
    assert results[3].is_error and "disk on fire" in contents[3]
    assert results[4].is_error and "Invalid arguments for tool 'add'" in contents[4]
    codes = {e.call_id: e.error_code for e in result.events if e.type == "tool_call_finished"}
    in_call_order = [codes[r.call_id] for r in results]
    assert in_call_order == [None, None, None, "TOOL_EXCEPTION", "INVALID_ARGUMENTS"]


async def test_two_servers_listing_the_same_tools_are_told_apart_by_prefix() -> None:
    async with MCPToolbox({"left": demo_server(), "right": demo_server()}) as toolbox:
        assert toolbox.routes["left_add"] == Route("left", "add")
        assert toolbox.routes["right_add"] == Route("right", "add")
        model = ScriptedModel(
            [calls(("left_add", {"a": 1, "b": 2}), ("right_shout", {"text": "b"})), reply("ok")]
        )
        result = await Agent(model, tools=toolbox.tools).run("q")
    assert [r.content for r in results_of(result.messages)] == ["3", "B"]


async def test_a_hanging_call_times_out_for_the_model_and_the_server_still_serves() -> None:
    async with MCPToolbox({"demo": demo_server(timeout=0.5)}) as toolbox:
        model = ScriptedModel(
            [call("hang"), call("add", a=1, b=1), reply("the documents do not say")]
        )
        started = time.monotonic()
        result = await Agent(model, tools=toolbox.tools).run("q")
    assert time.monotonic() - started < 10
    hung, added = results_of(result.messages)
    assert hung.is_error and "timed out after 0.5s" in hung.content
    assert added.content == "2" and not added.is_error
    assert result.outcome == "answered"


async def test_servers_stop_when_the_toolbox_closes() -> None:
    before = set(children())
    async with MCPToolbox({"a": demo_server(), "b": demo_server()}):
        assert len(set(children()) - before) == 2
    assert set(children()) - before == set()


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (MCPServerConfig(command="/nonexistent/mcp-server"), "could not start: FileNotFoundError"),
        (MCPServerConfig(command="python3", args=("-c", "pass")), "could not start"),
        (
            MCPServerConfig(
                command="python3", args=("-c", "import time; time.sleep(60)"), startup_timeout=0.5
            ),
            "did not answer within 0.5s",
        ),
        (MCPServerConfig(url="http://127.0.0.1:9/mcp"), "could not start: ConnectError"),
    ],
)
async def test_a_server_that_cannot_start_is_a_typed_error_and_leaves_nothing_running(
    config: MCPServerConfig, message: str
) -> None:
    before = set(children())
    with pytest.raises(MCPServerError, match=message):
        async with MCPToolbox({"bad": config}):
            pass
    assert set(children()) - before == set()


async def test_servers_that_started_are_stopped_when_another_cannot_start() -> None:
    before = set(children())
    bad = MCPServerConfig(command="/nonexistent/mcp-server")
    with pytest.raises(MCPServerError, match="'bad' could not start"):
        async with MCPToolbox({"good": demo_server(), "bad": bad}):
            pass
    assert set(children()) - before == set()


# -- the npm reference servers -----------------------------------------------------------


@requires(EVERYTHING, MEMORY)
async def test_two_npm_servers_tools_are_called_in_one_run(tmp_path: Path) -> None:
    servers = {
        "everything": MCPServerConfig(command=str(EVERYTHING), args=("stdio",)),
        "memory": memory_server(tmp_path),
    }
    async with MCPToolbox(servers) as toolbox:
        model = ScriptedModel(
            [
                calls(
                    ("echo", {"message": "hello"}),
                    ("create_entities", {"entities": [_entity("Ada", "met on Tuesday")]}),
                ),
                calls(("get-sum", {"a": 2, "b": 3}), ("open_nodes", {"names": ["Ada"]})),
                reply("ok"),
            ]
        )
        result = await Agent(model, tools=toolbox.tools).run("q")
    echo, created, summed, opened = results_of(result.messages)
    assert echo.content == "Echo: hello"
    # The two servers' calls run concurrently: either may finish first.
    [echoed] = [e for e in result.events if e.type == "tool_call_finished" and e.name == "echo"]
    assert isinstance(echoed.value, MCPToolResult)
    assert echoed.output_summary == "everything: Echo: hello"
    assert not created.is_error and "Ada" in created.content
    assert "5" in summed.content
    assert "met on Tuesday" in opened.content
    assert "met on Tuesday" in (tmp_path / "memory.jsonl").read_text()


@requires(EVERYTHING, MEMORY)
async def test_a_killed_server_costs_the_model_an_error_and_the_run_answers(
    tmp_path: Path,
) -> None:
    """One server over streamable HTTP, one over stdio; each is killed in turn mid-run."""
    with everything_over_http() as (url, http_server):

        def kill_the_http_server(_: ModelRequest) -> ModelResponse:
            http_server.kill()
            http_server.wait()
            return calls(("echo", {"message": "two"}), ("search_nodes", {"query": "Ada"}))

        def kill_the_stdio_server(_: ModelRequest) -> ModelResponse:
            kill_child(str(MEMORY))
            return calls(("search_nodes", {"query": "Bob"}), ("local_double", {"n": 4}))

        servers = {"everything": MCPServerConfig(url=url), "memory": memory_server(tmp_path)}
        async with MCPToolbox(servers) as toolbox:
            model = ScriptedModel(
                [
                    calls(("echo", {"message": "one"}), ("read_graph", {})),
                    kill_the_http_server,
                    kill_the_stdio_server,
                    reply("answered anyway"),
                ]
            )
            result = await Agent(model, tools=[*toolbox.tools, local_double]).run("q")
    assert result.outcome == "answered" and result.output == "answered anyway"
    first_echo, first_graph, dead_echo, graph, dead_graph, doubled = results_of(result.messages)
    assert first_echo.content == "Echo: one" and "entities" in first_graph.content
    assert dead_echo.is_error and "MCP server 'everything'" in dead_echo.content
    assert not graph.is_error
    assert dead_graph.is_error and "MCP server 'memory'" in dead_graph.content
    assert doubled.content == "8"


def _entity(name: str, observation: str) -> dict[str, object]:
    return {"name": name, "entityType": "person", "observations": [observation]}
