"""Tools from MCP servers: each server's tools become ordinary ``Tool`` objects.

The agent routes a call to the session of the server that listed the tool
(seed 004's tool-to-client map), so tools of several servers mix freely with
local ones. Arguments are checked against the server's JSON schema before the
call; an error result from the server becomes an error result for the model.

```python
async with mcp_stdio_tools("npx", ["-y", "@modelcontextprotocol/server-everything"]) as tools:
    result = await Agent(model, tools=tools).run("...")
```
Needs the optional ``mcp`` extra.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp import types as mcp_types
from mcp.client.stdio import stdio_client

from docuchat.agent.tools import ArgumentValidator, InvalidArguments, Tool


class MCPToolError(Exception):
    """The MCP server answered the call with an error result."""


@asynccontextmanager
async def mcp_stdio_tools(
    command: str,
    args: Sequence[str] = (),
    *,
    env: Mapping[str, str] | None = None,
    prefix: str = "",
    tool_timeout: float | None = None,
) -> AsyncIterator[list[Tool]]:
    """Start an MCP server over stdio and yield its tools; the server stops on exit."""
    params = StdioServerParameters(
        command=command, args=list(args), env=dict(env) if env is not None else None
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield await session_tools(session, prefix=prefix, tool_timeout=tool_timeout)


async def session_tools(
    session: ClientSession, *, prefix: str = "", tool_timeout: float | None = None
) -> list[Tool]:
    """Every tool an initialised MCP session lists (following pagination)."""
    listed: list[mcp_types.Tool] = []
    cursor: str | None = None
    while True:
        params = mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        listed.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return [_as_tool(session, t, prefix, tool_timeout) for t in listed]


def _as_tool(
    session: ClientSession, spec: mcp_types.Tool, prefix: str, timeout: float | None
) -> Tool:
    schema = dict(spec.input_schema or {"type": "object", "properties": {}})

    async def call(**arguments: Any) -> str:
        result = await session.call_tool(spec.name, arguments)
        if not isinstance(result, mcp_types.CallToolResult):
            raise MCPToolError(f"{spec.name} returned an unexpected {type(result).__name__}")
        text = _text_of(result)
        if result.is_error:
            raise MCPToolError(text or "the MCP server reported an error")
        return text

    return Tool(
        name=prefix + spec.name,
        description=spec.description or spec.title or spec.name,
        parameters=schema,
        validate=_schema_validator(prefix + spec.name, schema),
        handler=call,
        timeout=timeout,
    )


def _schema_validator(name: str, schema: Mapping[str, Any]) -> ArgumentValidator:
    validator = jsonschema.Draft202012Validator(schema)

    def validate(arguments: Mapping[str, Any]) -> dict[str, Any]:
        problems = sorted(validator.iter_errors(dict(arguments)), key=lambda e: list(e.path))
        if problems:
            detail = "; ".join(
                f"{'.'.join(str(p) for p in e.path) or '(arguments)'}: {e.message}"
                for e in problems
            )
            raise InvalidArguments(
                f"Invalid arguments for tool {name!r}: {detail}. Fix the arguments and retry."
            )
        return dict(arguments)

    return validate


def _text_of(result: mcp_types.CallToolResult) -> str:
    parts: list[str] = []
    for block in result.content:
        if isinstance(block, mcp_types.TextContent):
            parts.append(block.text)
        else:
            parts.append(f"[{block.type} content]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return "\n".join(parts)
