"""A small real MCP server (official SDK, stdio) for the MCP routing tests."""

import asyncio

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("docuchat-test")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the given reason (a tool error the client may show)."""
    raise ToolError(reason)


@server.tool()
async def hang() -> str:
    """Never answers (a server stuck on a call)."""
    await asyncio.sleep(3600)
    return "woke up"


if __name__ == "__main__":
    server.run("stdio")
