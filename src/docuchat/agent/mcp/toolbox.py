"""Several MCP servers as one tool source: started together, routed by one table, closed on exit."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping
from functools import partial
from types import TracebackType
from typing import Any

from mcp import types as mcp_types

from docuchat.agent.mcp.connection import MCPServerConnection
from docuchat.agent.mcp.routing import Route, route_tools
from docuchat.agent.mcp.tools import mcp_tool
from docuchat.agent.tools import Tool
from docuchat.config import MCPServerConfig


class MCPToolbox:
    """``async with MCPToolbox(servers) as toolbox:`` then ``Agent(model, tools=toolbox.tools)``.

    Every server starts once, on entry (a server that cannot start raises
    ``MCPServerError`` and none is left running); ``routes`` maps each tool name
    the model sees to its server; on exit every server is stopped. ``reserved``
    names (the agent's own tools) are never taken by a server's tool.
    """

    def __init__(
        self, servers: Mapping[str, MCPServerConfig], *, reserved: Collection[str] = ()
    ) -> None:
        self.connections = {name: MCPServerConnection(name, c) for name, c in servers.items()}
        self.reserved = frozenset(reserved)
        self.routes: dict[str, Route] = {}
        self.tools: tuple[Tool, ...] = ()

    async def __aenter__(self) -> MCPToolbox:
        try:
            await self._start()
        except BaseException:
            await self.aclose()
            raise
        return self

    async def _start(self) -> None:
        opened = await asyncio.gather(
            *(c.open() for c in self.connections.values()), return_exceptions=True
        )
        for result in opened:
            if isinstance(result, BaseException):
                raise result
        listed = {
            server: tools
            for server, tools in zip(self.connections, opened, strict=True)
            if not isinstance(tools, BaseException)
        }
        self.routes = route_tools(
            {server: [t.name for t in tools] for server, tools in listed.items()},
            reserved=self.reserved,
        )
        specs = {(server, t.name): t for server, tools in listed.items() for t in tools}
        self.tools = tuple(
            mcp_tool(
                name,
                route.server,
                specs[route.server, route.tool],
                partial(self.call, name),
                timeout=self.connections[route.server].config.timeout,
            )
            for name, route in self.routes.items()
        )

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def call(self, name: str, arguments: dict[str, Any]) -> mcp_types.CallToolResult:
        """Call the tool the model knows as ``name`` on the server that lists it."""
        route = self.routes[name]
        return await self.connections[route.server].call(route.tool, arguments)

    async def aclose(self) -> None:
        await asyncio.gather(*(c.close() for c in self.connections.values()))
