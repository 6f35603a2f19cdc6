"""The FastAPI app: routers, error handlers, the web page and the OpenAPI schema."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request, status
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import TypeAdapter
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route

from docuchat import __version__
from docuchat.errors import AuthError, DocuchatError, NotFound, QueueFull, StoreError
from docuchat.models import Model
from docuchat.research import OWN_TOOL_NAMES
from docuchat.server.errors import OPENAI_PREFIX, error_response
from docuchat.server.guard import BodyLimits, RequestGuard
from docuchat.server.heap import settle_heap
from docuchat.server.routes import ROUTERS
from docuchat.server.services import Services, open_services
from docuchat.server.settings import ServerSettings
from docuchat.server.stream import StreamEvent
from docuchat.validation import describe

if TYPE_CHECKING:
    from docuchat.server.mcp_endpoint import MCPEndpoint

STATIC_DIR = Path(__file__).parent / "static"
# A validation error shows this much of what was sent: enough to recognise it, never all of it.
PREVIEW_CHARS = 100
PREVIEW_ITEMS = 10


def create_app(settings: ServerSettings | None = None, *, model: Model | None = None) -> FastAPI:
    """The app over the settings' database; ``model`` replaces the configured model."""
    settings = settings or ServerSettings()
    services = open_services(settings, model=model)
    mcp_endpoint = _mcp_endpoint(services)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as running:
            await _start_mcp_servers(services, running)
            if mcp_endpoint is not None:
                await running.enter_async_context(mcp_endpoint.sessions.run())
            yield
        await services.aclose()

    app = FastAPI(
        title="docuchat",
        version=__version__,
        summary="Ask questions of your own documents; answers cite the exact passages.",
        lifespan=lifespan,
    )
    app.state.services = services
    for router in ROUTERS:
        app.include_router(router)
    if mcp_endpoint is not None:
        # An ASGI app as a route's endpoint answers every method itself (POST, GET, DELETE).
        app.router.routes.append(Route("/mcp", mcp_endpoint, include_in_schema=False))
    _add_error_handlers(app)
    limits = BodyLimits(
        json_bytes=settings.max_json_bytes,
        upload_bytes=settings.max_upload_bytes,
        timeout=settings.read_timeout,
    )
    app.add_middleware(RequestGuard, accounts=services.accounts, limits=limits)
    # Last: everything no route claims is a file of the web page ("/" is its index.html).
    app.mount("/", StaticFiles(directory=STATIC_DIR, html=True), name="web")
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    return app


def _mcp_endpoint(services: Services) -> MCPEndpoint | None:
    """``/mcp``, when the optional ``mcp`` extra is installed."""
    try:
        from docuchat.server.mcp_endpoint import MCPEndpoint
    except ImportError:
        return None
    return MCPEndpoint(services)


async def _start_mcp_servers(services: Services, running: AsyncExitStack) -> None:
    """The configured MCP servers, started once for the app's life: their tools join every
    research run (the same servers for every user: configure only servers without private
    state of their own)."""
    servers = services.settings.mcp.servers
    if servers:
        from docuchat.agent.mcp import MCPToolbox

        toolbox = MCPToolbox(servers, reserved=OWN_TOOL_NAMES)
        services.mcp_tools = (await running.enter_async_context(toolbox)).tools


def app_from_environment() -> FastAPI:
    """The app of one of ``docuchat serve --workers N``'s processes: its settings come from
    the ``DOCUCHAT_*`` variables the parent set (``ServerSettings.environment``)."""
    app = create_app(ServerSettings())
    settle_heap()
    return app


def _add_error_handlers(app: FastAPI) -> None:
    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        return error_response(request.url.path, exc.status_code, str(exc.detail), exc.headers)

    async def invalid_request(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        path = request.url.path
        if not path.startswith(OPENAI_PREFIX):
            return JSONResponse({"detail": [_bounded_error(e) for e in exc.errors()]}, 422)
        problems = describe(exc.errors(), whole="body", skip=1)
        return error_response(path, status.HTTP_400_BAD_REQUEST, problems)

    async def docuchat_error(request: Request, exc: Exception) -> JSONResponse:
        path = request.url.path
        if isinstance(exc, AuthError):
            return error_response(path, 401, str(exc), {"WWW-Authenticate": "Bearer"})
        if isinstance(exc, NotFound):
            return error_response(path, 404, str(exc))
        if isinstance(exc, StoreError):
            return error_response(path, 503, str(exc))
        if isinstance(exc, QueueFull):
            return error_response(path, 503, str(exc), {"Retry-After": str(exc.retry_after)})
        return error_response(path, 500, str(exc))

    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(DocuchatError, docuchat_error)


def _bounded_error(error: Mapping[str, Any]) -> dict[str, Any]:
    """FastAPI's validation error, with a preview of the input in place of all of it."""
    bounded = {
        "type": error["type"],
        "loc": [_preview(part) for part in error["loc"]],
        "msg": error["msg"],
        "input": _preview(error.get("input")),
    }
    if "ctx" in error:
        bounded["ctx"] = _preview(error["ctx"])
    return bounded


def _preview(value: Any, depth: int = 2) -> Any:
    """JSON-ready and short: long strings cut, at most ``PREVIEW_ITEMS`` items, two levels."""
    if isinstance(value, bool | int | float) or value is None:
        return value
    if isinstance(value, str | bytes):
        text = value if isinstance(value, str) else value.decode("utf-8", "replace")
        return text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + "…"
    if isinstance(value, Mapping) and depth:
        items = islice(value.items(), PREVIEW_ITEMS)
        return {_preview(str(k), 0): _preview(v, depth - 1) for k, v in items}
    if isinstance(value, list | tuple) and depth:
        return [_preview(v, depth - 1) for v in value[:PREVIEW_ITEMS]]
    return _preview(str(value), 0)


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's schema, plus the stream events, and OpenAI's 400 in place of 422 under /v1."""
    if app.openapi_schema is None:
        schema = get_openapi(
            title=app.title, version=app.version, summary=app.summary, routes=app.routes
        )
        events = TypeAdapter(StreamEvent).json_schema(
            mode="serialization", ref_template="#/components/schemas/{model}"
        )
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components.update(events.pop("$defs"))
        components["StreamEvent"] = events
        for path, operations in schema["paths"].items():
            if path.startswith(OPENAI_PREFIX):
                for operation in operations.values():
                    operation["responses"].pop("422", None)
        app.openapi_schema = schema
    return app.openapi_schema
