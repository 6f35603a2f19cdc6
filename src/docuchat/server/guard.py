"""What every request passes before any route sees it: a pure ASGI middleware.

In this order, each refusal an error a client can act on, sent before the
next step:

1. the API key (every path under ``/api/`` and ``/v1/``): missing, malformed
   or unknown is 401, decided on the headers alone; the key's owner goes to
   the routes in the request's state;
2. the declared length: over the route's cap is 413, unreadable is 400, and
   an upload without one 411 (its cap and the upload queue's room are judged
   by it), all before a byte of the body is read;
3. the body as it arrives: a chunked JSON body over the cap is 413, a body
   that stops arriving is 408 (a JSON body must arrive whole within
   ``read_timeout``; an upload may not pause longer than that);
4. a JSON body (every body but an upload's) is read whole, then must be UTF-8,
   strict JSON (no ``NaN`` or ``Infinity``) and free of lone surrogates (which
   no UTF-8 text can hold): else 400 saying which. The routes then parse a
   body known to be sound.

Every response carries the security headers (``SECURITY_HEADERS``). A
refusal before the body was read closes the connection: the unread body
cannot be mistaken for the next request.

Not Starlette's ``BaseHTTPMiddleware`` (which runs the app on a task of its
own and re-wraps every response), nor its ``RequestBodyLimitMiddleware``
(plain-text 413, no deadline, and the key is checked only after the body).
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from functools import partial
from typing import Any

from fastapi.security.utils import get_authorization_scheme_param
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from docuchat.errors import AuthError
from docuchat.models.wire_json import may_hold_surrogates
from docuchat.server.db_calls import db_call
from docuchat.server.errors import OPENAI_PREFIX, error_response
from docuchat.store.accounts import Accounts, User

PROTECTED_PREFIXES = ("/api/", OPENAI_PREFIX)
UPLOAD_PATH = "/api/documents"
_CLOSE = {"Connection": "close"}
USER_STATE = "user"
"""The key in the request's state (``request.state.user``) of the authenticated ``User``."""

# Images also from data: (the icon) and blob: (page pictures, fetched with the key).
_PAGE_POLICY = (
    "default-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)
_CSP = (b"content-security-policy", _PAGE_POLICY.encode())
# FastAPI's interactive docs load Swagger UI and ReDoc from a CDN with inline scripts.
_DOCS_PATHS = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc"})

_JSON_TYPES = re.compile(r"^application/(?:[\w.+-]+\+)?json\s*(?:;|$)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class BodyLimits:
    json_bytes: int
    """Largest JSON body (every route but the upload)."""
    upload_bytes: int
    """Largest upload request."""
    timeout: float
    """Seconds a JSON body may take to arrive whole; the longest pause within an upload."""


class Refused(Exception):
    """A request the guard will not pass on: the status and the message for the client."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


class RequestGuard:
    def __init__(self, app: ASGIApp, accounts: Accounts, limits: BodyLimits) -> None:
        self.app = app
        self.accounts = accounts
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        send = partial(_with_security_headers, send, csp=path not in _DOCS_PATHS)
        headers = _headers(scope)
        try:
            if path.startswith(PROTECTED_PREFIXES):
                scope.setdefault("state", {})[USER_STATE] = await self._user(headers)
            receive = await self._checked_body(scope, headers, receive)
        except Refused as refused:
            response = error_response(
                path, refused.status, refused.message, {**_CLOSE, **refused.headers}
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _user(self, headers: dict[bytes, str]) -> User:
        scheme, key = get_authorization_scheme_param(headers.get(b"authorization"))
        try:
            if scheme.lower() != "bearer" or not key:
                raise AuthError("missing API key: send 'Authorization: Bearer <key>'")
            return await db_call(partial(self.accounts.authenticate, key))
        except AuthError as error:
            raise Refused(401, str(error), {"WWW-Authenticate": "Bearer"}) from None

    async def _checked_body(
        self, scope: Scope, headers: dict[bytes, str], receive: Receive
    ) -> Receive:
        """The ``receive`` the app gets: the original when there is no body, else a checked one."""
        length = _declared_length(headers.get(b"content-length"))
        chunked = "chunked" in headers.get(b"transfer-encoding", "").lower()
        if length == 0 or (length is None and not chunked):
            return receive
        upload = scope["path"] == UPLOAD_PATH and scope["method"] == "POST"
        if upload and length is None:  # the cap and the queue's room are judged by it
            raise Refused(411, "send the upload's Content-Length")
        cap = self.limits.upload_bytes if upload else self.limits.json_bytes
        if length is not None and length > cap:
            raise Refused(413, f"the body has {length:,} bytes, more than the limit of {cap:,}")
        if upload:  # read as it arrives, by the route (the server holds it to its length)
            return _PausedUpload(receive, self.limits.timeout).receive
        content_type = headers.get(b"content-type")
        if content_type is not None and not _JSON_TYPES.match(content_type):
            raise Refused(415, "send the body as JSON (Content-Type: application/json)")
        body = await _read_body(receive, cap, self.limits.timeout)
        _check_json(body)
        return _replay(body, receive)


_READ_HEADERS = frozenset(
    {b"authorization", b"content-length", b"content-type", b"transfer-encoding"}
)


def _headers(scope: Scope) -> dict[bytes, str]:
    """The headers the guard reads (ASGI servers give names in lower case)."""
    return {k: v.decode("latin-1") for k, v in scope["headers"] if k in _READ_HEADERS}


def _declared_length(header: str | None) -> int | None:
    if header is None:
        return None
    if not header.isdigit() or len(header) > 18:
        raise Refused(400, f"Content-Length is not a number of bytes: {header[:40]!r}")
    return int(header)


async def _read_body(receive: Receive, cap: int, seconds: float) -> bytes:
    """The whole body, within the cap and ``seconds``."""
    parts: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(seconds):
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    raise Refused(400, "the client went away before sending its body")
                part: bytes = message.get("body", b"")
                size += len(part)
                if size > cap:
                    raise Refused(413, f"the body is larger than the limit of {cap:,} bytes")
                parts.append(part)
                if not message.get("more_body", False):
                    return b"".join(parts)
    except TimeoutError:
        raise Refused(408, f"the body did not arrive within {seconds:g} s") from None


def _check_json(body: bytes) -> None:
    """Refuse what no route should parse: not UTF-8, not strict JSON, lone surrogates."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Refused(400, f"the body is not UTF-8 (byte {error.start})") from None
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except ValueError as error:
        raise Refused(400, f"the body is not valid JSON: {error}") from None
    except RecursionError:
        raise Refused(400, "the body is not valid JSON: nested too deeply") from None
    if may_hold_surrogates(text):  # a lone one cannot be encoded again
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise Refused(
                400, "the body holds a lone surrogate escape (\\ud800-\\udfff without its pair)"
            ) from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the body read, then hands over to the client's (disconnects)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


class _PausedUpload:
    """An upload's body as the app reads it: no pause longer than ``timeout``."""

    def __init__(self, receive: Receive, timeout: float) -> None:
        self._receive = receive
        self._timeout = timeout
        self._done = False

    async def receive(self) -> Message:
        if self._done:  # the body is in: what follows is a disconnect, however late
            return await self._receive()
        try:
            async with asyncio.timeout(self._timeout):
                message = await self._receive()
        except TimeoutError:
            raise HTTPException(
                408, f"the upload paused for more than {self._timeout:g} s", _CLOSE
            ) from None
        if message["type"] == "http.request":
            self._done = not message.get("more_body", False)
        return message


async def _with_security_headers(send: Send, message: Message, *, csp: bool) -> None:
    """Each security header the response does not set itself (a route may set a stricter
    policy, as the originals' ``sandbox``)."""
    if message["type"] == "http.response.start":
        headers = list(message.get("headers", ()))
        present = {name.lower() for name, _ in headers}
        added = (*SECURITY_HEADERS, _CSP) if csp else SECURITY_HEADERS
        headers += [header for header in added if header[0] not in present]
        message = {**message, "headers": headers}
    await send(message)
