"""docuchat as an MCP server: over stdio (``docuchat mcp``) and streamable HTTP (``/mcp``)."""

from docuchat.mcp_server.server import TOOLS, AgentFor, build_server

__all__ = ["TOOLS", "AgentFor", "build_server"]
