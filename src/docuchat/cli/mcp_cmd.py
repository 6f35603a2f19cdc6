"""``docuchat mcp``: your documents for MCP clients (Claude Desktop, Cursor, ...) over stdio."""

from __future__ import annotations

import asyncio

import click

from docuchat.cli.research_options import ResearchOptions, research_agent, research_options
from docuchat.cli.store_options import open_cli_store, store_options
from docuchat.errors import DocuchatError
from docuchat.store import Store


@click.command("mcp")
@research_options
@store_options
def mcp_command(research: ResearchOptions, db: str | None, owner: str | None) -> None:
    """Serve your documents over MCP on stdin/stdout until the client closes it.

    Tools: search_docs, open_citation, list_documents and ask (the research
    agent's cited answer); resources: docuchat://documents/{docId}. An MCP
    client starts this command itself (see the README for Claude Desktop and
    Cursor); logs go to stderr.
    """
    store, owner = open_cli_store(db, owner)
    try:
        asyncio.run(_serve(store, owner, research))
    except DocuchatError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        store.close()


async def _serve(store: Store, owner: str, research: ResearchOptions) -> None:
    from mcp.server.stdio import stdio_server  # the mcp extra loads only for this command

    from docuchat.mcp_server import build_server

    # The transport first: while it serves, stray prints (a library loading the embedder)
    # go to stderr instead of corrupting the protocol on stdout.
    async with stdio_server() as (read, write), research_agent(store, owner, research) as agent:
        server = build_server(lambda _request: agent)
        await server.run(read, write, server.create_initialization_options())
