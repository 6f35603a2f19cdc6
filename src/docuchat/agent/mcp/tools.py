"""An MCP server's tool as an ordinary :class:`Tool`.

Arguments are checked against the server's JSON schema before the call, so a
model's mistake costs no round trip; an error result from the server becomes
an error result for the model. A result is an :class:`MCPToolResult`: the
text the model sees, and the server's structured content for everyone else.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema
from mcp import types as mcp_types

from docuchat.agent.tools import ArgumentValidator, InvalidArguments, RunContext, Tool

CallTool = Callable[[dict[str, Any]], Awaitable[mcp_types.CallToolResult]]
SUMMARY_CHARS = 100


class MCPToolError(Exception):
    """The MCP server answered the call with an error result."""


@dataclass(frozen=True, slots=True)
class MCPToolResult:
    """What an MCP tool returned."""

    server: str
    tool: str
    text: str
    structured: Mapping[str, Any] | None

    def for_model(self) -> str:
        return self.text

    def summary(self) -> str:
        first = self.text.strip().split("\n", 1)[0]
        if len(first) > SUMMARY_CHARS:
            first = first[: SUMMARY_CHARS - 1] + "…"
        return f"{self.server}: {first}" if first else f"{self.server}: {self.tool} done"


def mcp_tool(
    name: str, server: str, spec: mcp_types.Tool, call_tool: CallTool, *, timeout: float
) -> Tool:
    """``spec`` (as ``server`` lists it) offered to a model as ``name``."""
    schema = dict(spec.input_schema or {"type": "object", "properties": {}})

    async def call(**arguments: Any) -> MCPToolResult:
        result = await call_tool(arguments)
        text = _text_of(result)
        if result.is_error:
            raise MCPToolError(text or "the MCP server reported an error")
        return MCPToolResult(server, spec.name, text, result.structured_content)

    def describe(_arguments: Mapping[str, Any], _ctx: RunContext[Any]) -> str:
        return f"Asking {server}: {spec.title or spec.name}"

    return Tool(
        name=name,
        description=spec.description or spec.title or spec.name,
        parameters=schema,
        validate=_schema_validator(name, schema),
        handler=call,
        timeout=timeout,
        describe=describe,
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
