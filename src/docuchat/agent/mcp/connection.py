"""One MCP server connection, held by a task of its own.

The SDK's transports run their pipe and HTTP work in a task group entered by
whoever opens the client. When a streamable HTTP server goes away, that group
fails and cancels the task that entered it: an agent run holding the client
would be cancelled mid-answer. So each connection lives in its own task; a
server that dies or hangs ends only that task, and calls get an error the
model can read (never a cancellation of the run).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from contextlib import AsyncExitStack
from typing import Any, TextIO

import httpx2
from mcp import Client, StdioServerParameters
from mcp import types as mcp_types
from mcp.client import Transport
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from docuchat import __version__
from docuchat.config import MCPServerConfig
from docuchat.errors import MCPServerError

log = logging.getLogger(__name__)

CLOSE_TIMEOUT = 10.0
"""The SDK stops a stdio server within about 6 s (stdin closed, SIGTERM, SIGKILL)."""
_HTTP_TIMEOUT = httpx2.Timeout(30.0, read=300.0)  # the SDK's own defaults for MCP over HTTP


class MCPServerUnavailable(Exception):
    """The server is not running (it exited, closed the connection or failed); for the model."""


class MCPServerConnection:
    """``await open()`` lists the server's tools; ``call`` runs one; ``close`` stops it."""

    def __init__(self, name: str, config: MCPServerConfig) -> None:
        self.name = name
        self.config = config
        self.failure: str | None = None
        """Why the connection ended, when it ended by itself."""
        self._client: Client | None = None
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def open(self) -> list[mcp_types.Tool]:
        listed: asyncio.Future[list[mcp_types.Tool]] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._hold(listed), name=f"mcp-server-{self.name}")
        try:
            async with asyncio.timeout(self.config.startup_timeout):
                return await listed
        except TimeoutError:
            self._task.cancel()
            await self.close()
            raise MCPServerError(
                f"MCP server {self.name!r} did not answer within "
                f"{self.config.startup_timeout:g}s of starting"
            ) from None

    async def call(self, tool: str, arguments: dict[str, Any]) -> mcp_types.CallToolResult:
        client = self._client
        if client is None:
            reason = f": {self.failure}" if self.failure else ""
            raise MCPServerUnavailable(f"the MCP server {self.name!r} is not running{reason}")
        try:
            return await client.call_tool(tool, arguments)
        except MCPError as exc:
            if exc.code != mcp_types.CONNECTION_CLOSED:
                raise
            raise MCPServerUnavailable(
                f"the MCP server {self.name!r} closed the connection (it may have exited)"
            ) from None

    async def close(self) -> None:
        self._stop.set()
        task, self._task = self._task, None
        if task is None:
            return
        done, _ = await asyncio.wait({task}, timeout=CLOSE_TIMEOUT)
        if not done:
            task.cancel()
            await asyncio.wait({task})

    async def _hold(self, listed: asyncio.Future[list[mcp_types.Tool]]) -> None:
        """The connection's task: connect, list the tools, wait for ``close``."""
        try:
            async with AsyncExitStack() as stack:
                transport = await self._transport(stack)
                info = mcp_types.Implementation(name="docuchat", version=__version__)
                client = await stack.enter_async_context(Client(transport, client_info=info))
                tools = await _all_tools(client)
                self._client = client
                listed.set_result(tools)
                await self._stop.wait()
        except Exception as exc:  # the server failed; the task ends, the process goes on
            self.failure = _describe(exc)
            log.warning("MCP server %r: %s", self.name, self.failure)
            if not listed.done():
                listed.set_exception(
                    MCPServerError(f"MCP server {self.name!r} could not start: {self.failure}")
                )
        finally:
            self._client = None

    async def _transport(self, stack: AsyncExitStack) -> Transport:
        config = self.config
        if config.command is not None:
            params = StdioServerParameters(
                command=config.command, args=list(config.args), env=config.env or None
            )
            return stdio_client(params, errlog=_stderr_file())
        assert config.url is not None
        http = await stack.enter_async_context(
            httpx2.AsyncClient(headers=config.headers, timeout=_HTTP_TIMEOUT)
        )
        return streamable_http_client(config.url, http_client=http)


async def _all_tools(client: Client) -> list[mcp_types.Tool]:
    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    while True:
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools


def _stderr_file() -> TextIO:
    """Where a stdio server's stderr goes: ours when it is a file, else the process's own
    (a notebook's or a test runner's ``sys.stderr`` has no file descriptor to hand over)."""
    try:
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return sys.__stderr__  # type: ignore[return-value]  # None (no console): fd 2 inherited
    return sys.stderr


def _describe(exc: BaseException) -> str:
    """The innermost cause of a transport's failure, in one line."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
