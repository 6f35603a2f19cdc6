"""``docuchat serve``: the web page, the API and the OpenAI-compatible endpoint."""

from __future__ import annotations

import os
from typing import Any

import click

from docuchat.cli.db_option import db_option
from docuchat.cli.research_options import MCPServers, mcp_option, mcp_servers
from docuchat.config import MCPSettings
from docuchat.errors import DocuchatError


@click.command("serve")
@click.option(
    "--host", default=None, help="Address to listen on (default: DOCUCHAT_HOST or 127.0.0.1)."
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=None,
    help="Port (default: DOCUCHAT_PORT or 8000).",
)
@db_option()
@click.option(
    "--model",
    "model_spec",
    default=None,
    metavar="SPEC",
    help="The model (default: DOCUCHAT_MODEL, else auto: a model server running here, "
    "else offline).",
)
@click.option(
    "--embedder",
    "embedder_spec",
    default=None,
    metavar="SPEC",
    help="The embedder for uploads and searches (default: DOCUCHAT_EMBEDDER or auto).",
)
@mcp_option(
    "An MCP server whose tools join every user's research agent (repeatable; adds to "
    "[mcp.servers] of the config file). Every user reaches the same server."
)
@click.option(
    "--workers",
    type=click.IntRange(1),
    default=None,
    help="Server processes sharing the port and the database (default: DOCUCHAT_WORKERS or 1).",
)
@click.option(
    "--ingest-threads",
    type=click.IntRange(0),
    default=None,
    help="Threads of each process that ingest uploads (default 1; 0 leaves them to"
    " `docuchat worker`).",
)
@click.option(
    "--access-log/--no-access-log", default=True, show_default=True, help="Log every request."
)
def serve_command(
    host: str | None,
    port: int | None,
    db: str | None,
    model_spec: str | None,
    embedder_spec: str | None,
    mcp: MCPServers,
    workers: int | None,
    ingest_threads: int | None,
    access_log: bool,
) -> None:
    """Serve docuchat over HTTP until interrupted (Ctrl-C).

    Open the address it prints in a browser and sign in with a key from
    `docuchat users add NAME`. Several processes (`--workers`, or `docuchat
    serve` on several hosts with one postgresql:// database) serve the same
    users, documents and conversations. MCP clients connect to /mcp with the same key.
    """
    import uvicorn  # the server's libraries load only for this command

    from docuchat.server import ServerSettings, create_app
    from docuchat.server.heap import settle_heap
    from docuchat.server.serving import uvicorn_options
    from docuchat.store import open_store

    flags: dict[str, Any] = {
        "host": host,
        "port": port,
        "db": db,
        "model": model_spec,
        "embedder": embedder_spec,
        "mcp": MCPSettings(servers=dict(mcp_servers(mcp, tools=None))) if mcp else None,
        "workers": workers,
        "ingest_threads": ingest_threads,
    }
    settings = ServerSettings(**{name: value for name, value in flags.items() if value is not None})
    options: dict[str, Any] = {
        "host": settings.host,
        "port": settings.port,
        "access_log": access_log,
        **uvicorn_options(settings),
    }
    processes = f", {settings.workers} processes" if settings.workers > 1 else ""
    try:
        if settings.workers == 1:
            app = create_app(settings)
        else:
            open_store(settings.db_path).close()  # migrated once, before the processes start
    except DocuchatError as exc:
        raise click.ClickException(str(exc)) from None
    if settings.workers == 1:
        services = app.state.services
        chosen = f" ({services.model_choice})" if services.model_choice else ""
        model = f"{services.model.name}{chosen}"
    else:
        model = settings.model  # each process chooses for itself
    click.echo(f"docuchat: {settings.db_path}, model {model}{processes}", err=True)
    if settings.workers == 1:
        settle_heap()
        uvicorn.run(app, **options)
        return
    # Each process builds its app from these variables (uvicorn starts them afresh, and
    # starts another in place of one that dies).
    os.environ.update(settings.environment())
    uvicorn.run(
        "docuchat.server.app:app_from_environment",
        factory=True,
        workers=settings.workers,
        **options,
    )
