"""Options shared by ``ask``, ``chat`` and ``mcp``, and the research agent they build."""

from __future__ import annotations

import functools
import shlex
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import click
from pydantic import ValidationError

from docuchat.agent import Tool
from docuchat.cli.store_options import require_documents
from docuchat.config import DetailLevel, MCPServerConfig, MCPSettings, Settings, ToolSet
from docuchat.embeddings import get_embedder
from docuchat.research import OWN_TOOL_NAMES, ResearchAgent
from docuchat.research.configured import configured_agent
from docuchat.research.detail import QuestionLimits, ResearchControls, check_model_allowed
from docuchat.research.models import choose_research_model
from docuchat.search import HybridSearcher
from docuchat.store import Store
from docuchat.validation import describe

F = TypeVar("F", bound=Callable[..., object])

MCPServers = Mapping[str, MCPServerConfig]


@dataclass(frozen=True, slots=True)
class ResearchOptions:
    """What ``research_options`` collects; the command receives it as ``research``."""

    model_spec: str | None
    mode: str
    embedder_spec: str | None
    tools: ToolSet | None
    mcp: MCPServers
    detail: DetailLevel | None
    max_tool_calls: int | None
    max_iterations: int | None
    timeout: float | None
    context_window: int | None
    stream: bool

    @property
    def limits(self) -> QuestionLimits:
        return QuestionLimits(self.max_tool_calls, self.max_iterations, self.timeout)


def parse_mcp_servers(
    _ctx: click.Context, _param: click.Parameter, values: Sequence[str]
) -> dict[str, MCPServerConfig]:
    """``--mcp NAME=COMMAND ARGS...`` (stdio) or ``--mcp NAME=URL`` (streamable HTTP)."""
    raw: dict[str, dict[str, object]] = {}
    for value in values:
        name, _, target = value.partition("=")
        if not target.strip():
            raise click.BadParameter(f"{value!r}: expected NAME=COMMAND or NAME=URL")
        if target.startswith(("http://", "https://")):
            raw[name] = {"url": target}
        else:
            command, *args = shlex.split(target)
            raw[name] = {"command": command, "args": args}
    try:
        return MCPSettings.model_validate({"servers": raw}).servers
    except ValidationError as exc:
        raise click.BadParameter(describe(exc.errors(), whole="servers", skip=1)) from None


def mcp_servers(flags: MCPServers, tools: str | None) -> MCPServers:
    """The config file's MCP servers and the ``--mcp`` ones (which win); none with basic tools."""
    if tools == "basic":
        if flags:
            raise click.UsageError("MCP tools join the rich tool set: drop --tools basic")
        return {}
    return {**Settings().mcp.servers, **flags}


def mcp_option(help: str) -> Callable[[F], F]:
    """``--mcp NAME=COMMAND|URL`` (repeatable), parsed into server configs."""
    return click.option(
        "--mcp",
        "mcp",
        multiple=True,
        metavar="NAME=COMMAND|URL",
        callback=parse_mcp_servers,
        help=help,
    )


def research_options(command: F) -> F:
    @functools.wraps(command)
    def collected(**kwargs: Any) -> object:
        names = ResearchOptions.__slots__
        options = ResearchOptions(**{name: kwargs.pop(name) for name in names})
        return command(research=options, **kwargs)

    for option in reversed(
        [
            click.option(
                "--model",
                "model_spec",
                default=None,
                metavar="SPEC",
                help="auto (a model server running here, else offline), offline, "
                "openai:<model>, anthropic:<model>, text:<spec> (default: DOCUCHAT_MODEL, "
                "the config file, else auto).",
            ),
            click.option(
                "--mode",
                type=click.Choice(["agent", "pipeline"]),
                default="agent",
                show_default=True,
                help="agent: the model chooses its steps; pipeline: search, open, answer.",
            ),
            click.option(
                "--embedder",
                "embedder_spec",
                default=None,
                metavar="SPEC",
                help="The embedder the documents were ingested with (default: auto).",
            ),
            click.option(
                "--tools",
                type=click.Choice(["basic", "rich"]),
                default=None,
                help="rich adds read_document, read_multiple_documents, get_document_summary "
                "and the MCP servers' tools (default: rich when MCP servers are configured, "
                "else [research] tools in the config file, else basic).",
            ),
            mcp_option(
                "An MCP server whose tools join the agent, started for this command: "
                "NAME='npx -y @modelcontextprotocol/server-memory' or NAME=https://host/mcp "
                "(repeatable; adds to [mcp.servers] of the config file)."
            ),
            click.option(
                "--detail",
                type=click.Choice(["brief", "standard", "detailed"]),
                default=None,
                help="How thoroughly to research: sets the tool calls, passages per search, "
                "characters read and passages kept open (default: [research] detail, "
                "else standard).",
            ),
            click.option("--max-tool-calls", type=click.IntRange(min=1), default=None, metavar="N"),
            click.option("--max-iterations", type=click.IntRange(min=1), default=None, metavar="N"),
            click.option(
                "--timeout",
                type=click.FloatRange(min=0, min_open=True),
                default=None,
                metavar="SECONDS",
                help="The most a question may take (default: [research] timeout, else 120).",
            ),
            click.option(
                "--context-window",
                type=click.IntRange(min=256),
                default=None,
                metavar="TOKENS",
                help="The model's context window, when its server does not report it "
                "(default: DOCUCHAT_CONTEXT_WINDOW, the config file, the server, else 2048).",
            ),
            click.option(
                "--stream/--no-stream",
                default=True,
                show_default=True,
                help="Stream the model's answers, or take each one whole.",
            ),
        ]
    ):
        collected = option(collected)
    return collected  # type: ignore[return-value]


def require_sources(store: Store, owner: str, db: str | None, options: ResearchOptions) -> None:
    """Documents to research (else a click error that says to ingest), unless MCP servers
    bring tools of their own."""
    if not mcp_servers(options.mcp, options.tools):
        require_documents(store, owner, db)


@asynccontextmanager
async def research_agent(
    store: Store, owner: str, options: ResearchOptions
) -> AsyncIterator[ResearchAgent]:
    """The research agent the options describe, with its MCP servers running until exit."""
    servers = mcp_servers(options.mcp, options.tools)
    if not servers:
        yield _build_agent(store, owner, options)
        return
    from docuchat.agent.mcp import MCPToolbox  # the mcp extra loads only when servers are used

    async with MCPToolbox(servers, reserved=OWN_TOOL_NAMES) as toolbox:
        yield _build_agent(store, owner, options, extra=toolbox.tools)


def _build_agent(
    store: Store, owner: str, options: ResearchOptions, *, extra: Sequence[Tool] = ()
) -> ResearchAgent:
    settings = Settings()
    embedder = get_embedder(options.embedder_spec or settings.embedder, purpose="queries")
    spec = options.model_spec or settings.model
    check_model_allowed(spec, settings.research)  # before the model is built
    controls = ResearchControls.of(settings.research).overridden(
        detail=options.detail, tools=options.tools, limits=options.limits
    )
    chosen = choose_research_model(spec, embedder=embedder)
    return configured_agent(
        HybridSearcher(store, embedder),
        chosen.model,
        owner,
        model_spec=spec,
        mode="pipeline" if options.mode == "pipeline" else "agent",
        controls=controls,
        config=settings.research,
        model_timeout=settings.model_timeout,
        extra_tools=tuple(extra),
        context_window=options.context_window or settings.context_window,
        model_choice=chosen.choice,
    )
