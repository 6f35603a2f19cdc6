"""``/mcp``: docuchat's MCP server over streamable HTTP, behind the same API keys as ``/api``.

The SDK's own pieces, wired to our keys: ``BearerAuthBackend`` asks
:class:`APIKeys` (the SDK's ``TokenVerifier`` protocol) who a key belongs to
and puts that user on the request; ``RequireAuthMiddleware`` answers 401 (with
``WWW-Authenticate: Bearer``) when there is none; each tool call then runs as
the request's user, who sees only their own documents.

Stateless: every request stands alone, so any worker can serve it (workers
share state only through the database).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from mcp.server.auth.middleware.bearer_auth import (
    AuthenticatedUser,
    BearerAuthBackend,
    RequireAuthMiddleware,
)
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from docuchat.errors import AuthError
from docuchat.mcp_server import build_server
from docuchat.mcp_server.server import Context
from docuchat.research import ResearchAgent
from docuchat.server.db_calls import db_call
from docuchat.server.services import Services
from docuchat.store.accounts import Accounts

LOOPBACK = ("127.0.0.1", "localhost", "::1")


class APIKeys:
    """Our API keys as the SDK's ``TokenVerifier``: the key's user becomes the token's client."""

    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            user = await db_call(partial(self.accounts.authenticate, token))
        except AuthError:
            return None
        return AccessToken(token=token, client_id=user.id, scopes=[])


class MCPEndpoint:
    """The ASGI app of ``/mcp``; ``sessions.run()`` must be entered for the app's life."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.sessions = StreamableHTTPSessionManager(
            build_server(self._agent_for),
            stateless=True,
            security_settings=_transport_security(services.settings.host),
        )
        guarded = RequireAuthMiddleware(self.sessions.handle_request, required_scopes=[])
        self.app: ASGIApp = AuthenticationMiddleware(
            guarded, backend=BearerAuthBackend(APIKeys(services.accounts))
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)

    def _agent_for(self, ctx: Context) -> ResearchAgent:
        request: Any = ctx.request
        user = request.scope.get("user") if isinstance(request, Request) else None
        # RequireAuthMiddleware lets no request through without a user; never guess one.
        if not isinstance(user, AuthenticatedUser):
            raise AuthError("an MCP request without an authenticated user")
        return self.services.agent(user.access_token.client_id, "agent")


def _transport_security(host: str) -> TransportSecuritySettings | None:
    """DNS-rebinding protection when serving on loopback, as the SDK's own app factory does."""
    if host not in LOOPBACK:
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )
