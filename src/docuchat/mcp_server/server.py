"""docuchat as an MCP server: the asker's documents as tools and resources.

Built on the SDK's low-level ``Server`` rather than ``MCPServer`` (FastMCP):
MCPServer keeps one registry of resources for every caller, while here the
resources *are* the asker's documents, a different list for each API key on
the HTTP transport; the low-level handlers receive the request (and so the
key's owner) and answer from that owner's research agent only.

Like the CLI and the HTTP API, this is a front end: every answer comes from
the research agent (``ask``), its session (``search_docs``, ``open_citation``)
or its library (listing and reading documents), never from the store directly.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp import types as mcp_types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ValidationError

from docuchat import __version__
from docuchat.errors import NotFound
from docuchat.mcp_server.pages import InvalidCursor, page_of
from docuchat.mcp_server.schemas import (
    DOCUMENT_URI,
    AskArguments,
    AskResult,
    DocumentInfo,
    DocumentList,
    Hit,
    NoArguments,
    OpenArguments,
    Passage,
    SearchArguments,
    SearchResult,
    ToolResult,
    document_uri,
)
from docuchat.research import ResearchAgent
from docuchat.research.tools import PassageUnavailable

Context = ServerRequestContext[Any, Any]
AgentFor = Callable[[Context], ResearchAgent]
"""The research agent of the request's asker."""

INSTRUCTIONS = (
    "The user's own documents. search_docs finds passages (ids, title, page, snippet); "
    "open_citation reads one; ask answers a question with verified, numbered citations; "
    "list_documents and the docuchat://documents/{docId} resources give whole documents."
)


@dataclass(frozen=True, slots=True)
class _Tool:
    name: str
    description: str
    arguments: type[BaseModel]
    result: type[ToolResult]
    run: Callable[[ResearchAgent, Any], Awaitable[ToolResult]]

    @property
    def listing(self) -> mcp_types.Tool:
        return mcp_types.Tool(
            name=self.name,
            description=self.description,
            input_schema=self.arguments.model_json_schema(),
            output_schema=self.result.model_json_schema(),
            annotations=mcp_types.ToolAnnotations(read_only_hint=True),
        )


async def _search(agent: ResearchAgent, arguments: SearchArguments) -> SearchResult:
    found = await asyncio.to_thread(agent.session().search, arguments.query)
    return SearchResult(
        query=found.query,
        hits=[Hit.model_validate(h.as_dict(with_file=True)) for h in found.hits],
    )


async def _open(agent: ResearchAgent, arguments: OpenArguments) -> Passage:
    opened = await asyncio.to_thread(agent.session().open, arguments.docId, arguments.chunkId)
    return Passage(
        docId=opened.doc_id,
        chunkId=opened.chunk_id,
        title=opened.title,
        file=opened.file,
        page=opened.page,
        text=opened.text,
    )


async def _documents(agent: ResearchAgent, _: NoArguments) -> DocumentList:
    records = await asyncio.to_thread(agent.library().documents)
    return DocumentList(documents=[DocumentInfo.of(r) for r in records])


async def _ask(agent: ResearchAgent, arguments: AskArguments) -> AskResult:
    if arguments.mode is not None:
        agent = dataclasses.replace(agent, mode=arguments.mode)
    answer = await agent.ask(arguments.question)
    return AskResult.of(answer)


TOOLS = {
    tool.name: tool
    for tool in (
        _Tool(
            "search_docs",
            "Search the user's documents. Returns, per matching passage: docId, chunkId, "
            "title, page, a short snippet and a score; open one with open_citation to read it.",
            SearchArguments,
            SearchResult,
            _search,
        ),
        _Tool(
            "open_citation",
            "Read one passage found by search_docs (up to 1,500 characters).",
            OpenArguments,
            Passage,
            _open,
        ),
        _Tool(
            "list_documents",
            "The user's documents, oldest first, with their resource URIs.",
            NoArguments,
            DocumentList,
            _documents,
        ),
        _Tool(
            "ask",
            "Answer a question from the user's documents with docuchat's research agent. "
            "The answer cites passages as [N]; each citation carries its document, page, "
            "the quoted sentence with its character span, and whether it was verified.",
            AskArguments,
            AskResult,
            _ask,
        ),
    )
}


def build_server(agent_for: AgentFor) -> Server[Any]:
    """The MCP server; ``agent_for`` gives each request its asker's research agent."""

    async def list_tools(
        _ctx: Context, _params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(tools=[t.listing for t in TOOLS.values()])

    async def call_tool(
        ctx: Context, params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult:
        tool = TOOLS.get(params.name)
        if tool is None:
            raise MCPError(code=mcp_types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        try:
            arguments = tool.arguments.model_validate(params.arguments or {})
            result = await tool.run(agent_for(ctx), arguments)
        except ValidationError as exc:
            return _error(f"Invalid arguments for {tool.name}: {_problems(exc)}")
        except (PassageUnavailable, NotFound) as exc:
            return _error(str(exc))
        return mcp_types.CallToolResult(
            content=[mcp_types.TextContent(type="text", text=result.as_text())],
            structured_content=result.model_dump(mode="json"),
        )

    async def list_resources(
        ctx: Context, params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListResourcesResult:
        records = await asyncio.to_thread(agent_for(ctx).library().documents)
        try:
            page = page_of(records, params.cursor if params else None)
        except InvalidCursor as exc:
            raise MCPError(code=mcp_types.INVALID_PARAMS, message=str(exc)) from None
        return mcp_types.ListResourcesResult(
            next_cursor=page.next_cursor,
            resources=[
                mcp_types.Resource(
                    uri=document_uri(r.id),
                    name=r.title,
                    title=r.title,
                    description=f"{r.media_type}, {r.page_count} pages: the extracted text",
                    mime_type="text/plain",
                )
                for r in page.records
            ],
        )

    async def list_templates(
        _ctx: Context, _params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListResourceTemplatesResult:
        template = mcp_types.ResourceTemplate(
            uri_template=DOCUMENT_URI,
            name="document",
            description="One of your documents, its whole extracted text",
            mime_type="text/plain",
        )
        return mcp_types.ListResourceTemplatesResult(resource_templates=[template])

    async def read_resource(
        ctx: Context, params: mcp_types.ReadResourceRequestParams
    ) -> mcp_types.ReadResourceResult:
        uri = str(params.uri)
        prefix, _, doc_id = uri.rpartition("/")
        if prefix + "/" != document_uri(""):
            raise MCPError(code=mcp_types.INVALID_PARAMS, message=f"Unknown resource: {uri}")
        try:
            text = await asyncio.to_thread(agent_for(ctx).library().text, doc_id)
        except NotFound:
            raise MCPError(
                code=mcp_types.INVALID_PARAMS, message=f"No document {doc_id!r} is available to you"
            ) from None
        return mcp_types.ReadResourceResult(
            contents=[mcp_types.TextResourceContents(uri=uri, text=text, mime_type="text/plain")]
        )

    return Server(
        "docuchat",
        version=__version__,
        title="docuchat: your documents",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )


def _error(message: str) -> mcp_types.CallToolResult:
    """A tool error the calling model can read and correct."""
    return mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text=message)], is_error=True
    )


def _problems(error: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '(arguments)'}: {e['msg']}" for e in error.errors()
    )
