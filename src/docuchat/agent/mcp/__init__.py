"""MCP servers as a tool source: their tools become ordinary ``Tool`` objects.

```python
servers = {
    "memory": MCPServerConfig(command="npx", args=["-y", "@modelcontextprotocol/server-memory"]),
    "search": MCPServerConfig(url="https://example.com/mcp", headers={"Authorization": "..."}),
}
async with MCPToolbox(servers) as toolbox:
    result = await Agent(model, tools=[*my_tools, *toolbox.tools]).run("...")
```

Each server runs once for the toolbox's life. A call is routed by one table,
tool name -> server (names listed by two servers get the server's prefix). A
server that exits, closes the connection or hangs costs the model an error
result (a timeout after the server's ``timeout``), never the run.
Needs the optional ``mcp`` extra.
"""

from docuchat.agent.mcp.connection import MCPServerConnection, MCPServerUnavailable
from docuchat.agent.mcp.routing import Route, route_tools
from docuchat.agent.mcp.toolbox import MCPToolbox
from docuchat.agent.mcp.tools import MCPToolError, MCPToolResult, mcp_tool
from docuchat.config import MCPServerConfig

__all__ = [
    "MCPServerConfig",
    "MCPServerConnection",
    "MCPServerUnavailable",
    "MCPToolError",
    "MCPToolResult",
    "MCPToolbox",
    "Route",
    "mcp_tool",
    "route_tools",
]
