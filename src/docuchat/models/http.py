"""Wire plumbing shared by the provider adapters: HTTP with retries, SSE, tool arguments.

:class:`ProviderClient` posts JSON to one provider over ``aiohttp``. Transient
failures (408, 409, 425, 429, 5xx, timeouts, dropped connections) are retried
with exponential backoff and full jitter, honouring ``Retry-After``; anything
else becomes a typed :mod:`docuchat.errors` error carrying the provider's own
message. A streamed call is retried only until its response headers arrive:
once text may have reached the caller, a failure is final.
"""

from __future__ import annotations

import asyncio
import email.utils
import os
import random
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import aclosing, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from aiohttp.http_exceptions import ContentEncodingError

from docuchat.errors import (
    ConfigError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelResponseError,
)
from docuchat.models import wire_json
from docuchat.models.base import ToolCall
from docuchat.models.http_pool import HTTPPool, env_proxy, new_session
from docuchat.models.overflow import context_overflow

DEFAULT_TIMEOUT = aiohttp.ClientTimeout(sock_connect=10.0, sock_read=300.0)
"""Reasoning models may think for minutes before the first byte of a non-streamed answer."""

_MAX_MESSAGE_CHARS = 2000


def _full_jitter(ceiling: float) -> float:
    return random.uniform(0.0, ceiling)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how long to wait before retrying a transient failure.

    Attempt ``n`` (from 0) waits a random time in ``[0, min(max_delay,
    base_delay * 2**n)]`` ("full jitter"), or exactly what the server asked for
    in ``Retry-After``. A server asking for more than ``max_delay`` ends the
    retries: the error then carries ``retry_after`` for the caller.
    """

    max_retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 30.0
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, repr=False)
    jitter: Callable[[float], float] = field(default=_full_jitter, repr=False)

    def delay_before_retry(self, error: ModelError, attempt: int) -> float | None:
        """Seconds to wait before retrying after ``error`` on ``attempt``, or None to give up."""
        if not error.retryable or attempt >= self.max_retries:
            return None
        retry_after = error.retry_after if isinstance(error, ModelHTTPError) else None
        if retry_after is not None:
            return retry_after if retry_after <= self.max_delay else None
        return self.jitter(min(self.max_delay, self.base_delay * 2**attempt))


DEFAULT_RETRY = RetryPolicy()


def retry_after_seconds(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """The wait a server asks for: ``retry-after-ms``, else ``Retry-After`` (seconds or a date)."""
    milliseconds = headers.get("retry-after-ms")
    if milliseconds:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _json_or_none(body: bytes) -> Any:
    try:
        return wire_json.loads(body)
    except ValueError:
        return None


def provider_message(body: bytes, reason: str | None) -> str:
    """The human-readable error a provider put in its body.

    OpenAI-compatible servers send ``{"error": {"message": ...}}``, Anthropic
    ``{"error": {"type": ..., "message": ...}}``; OpenRouter adds the upstream
    reason in ``error.metadata.raw``. Anything else is returned as raw text.
    """
    decoded = _json_or_none(body)
    message = error_message(decoded) if isinstance(decoded, dict) else None
    if message is None:
        message = body.decode(errors="replace").strip() or reason or "no message"
    return message[:_MAX_MESSAGE_CHARS]


def error_message(body: Mapping[str, Any]) -> str | None:
    """The message of an ``{"error": ...}`` body, or None when it has none."""
    error = body.get("error")
    if isinstance(error, str):
        return error
    if not isinstance(error, dict) or not isinstance(error.get("message"), str):
        return None
    message: str = error["message"]
    metadata = error.get("metadata")
    upstream = metadata.get("raw") if isinstance(metadata, dict) else None
    if isinstance(upstream, str) and upstream:
        message = f"{message}: {upstream}"
    return message


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    event: str
    data: str


async def iter_sse(lines: AsyncIterator[str]) -> AsyncIterator[ServerSentEvent]:
    """Server-sent events from lines of ``event:`` / ``data:`` fields, framed by blank lines."""
    event = ""
    data: list[str] = []
    async for line in lines:
        if not line:
            if data:
                yield ServerSentEvent(event or "message", "\n".join(data))
            event, data = "", []
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
    if data:
        yield ServerSentEvent(event or "message", "\n".join(data))


def decode_event(event: ServerSentEvent) -> Any:
    try:
        return wire_json.loads(event.data)
    except ValueError as error:
        raise ModelResponseError(f"stream event is not JSON: {event.data[:200]!r}") from error


@contextmanager
def response_shape(what: str) -> Iterator[None]:
    """Turns a body of an unexpected shape (a list where an object was due) into a typed error."""
    try:
        yield
    except (KeyError, IndexError, TypeError, AttributeError) as error:
        raise ModelResponseError(f"unexpected {what}: {error!r}") from error


def env_credentials(prefix: str, default_base_url: str) -> tuple[str | None, str]:
    """``(api key, base URL)`` from ``{prefix}_API_KEY`` and ``{prefix}_BASE_URL``."""
    api_key = os.environ.get(f"{prefix}_API_KEY") or None
    return api_key, os.environ.get(f"{prefix}_BASE_URL") or default_base_url


def require_key(api_key: str | None, base_url: str, provider_host: str, prefix: str) -> None:
    """A key is required by the provider's own host only; local and proxy servers may need none."""
    if not api_key and urlsplit(base_url).hostname == provider_host:
        raise ConfigError(
            f"{prefix}_API_KEY is not set: it is required for {provider_host} "
            f"(set {prefix}_BASE_URL to use a server that needs no key)"
        )


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:24]}"


def make_tool_call(call_id: str | None, name: str, arguments: str | None) -> ToolCall:
    """A tool call from wire fields; never raises.

    Arguments that are not a JSON object are kept in ``raw_arguments`` (with
    empty ``arguments``) for the loop to report back to the model. A missing
    id (some vendors send none) is generated.
    """
    parsed: Any = {}
    if arguments is not None and arguments.strip():
        try:
            parsed = wire_json.loads(arguments)
        except ValueError:
            parsed = None
    if isinstance(parsed, dict):
        return ToolCall(id=call_id or new_call_id(), name=name, arguments=parsed)
    return ToolCall(id=call_id or new_call_id(), name=name, arguments={}, raw_arguments=arguments)


class ProviderClient:
    """POSTs JSON to one provider's base URL with retries.

    With an injected :class:`HTTPPool` the caller owns it (and its keep-alive
    connections); without one, each call opens and closes its own session.
    Cancelling the awaiting task closes the connection of the in-flight request.
    """

    def __init__(
        self,
        base_url: str,
        headers: Mapping[str, str],
        *,
        http_client: HTTPPool | None,
        retry: RetryPolicy,
        timeout: aiohttp.ClientTimeout | float,
    ) -> None:
        url = urlsplit(base_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ConfigError(f"base URL must be an http(s) URL, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.headers = {"content-type": "application/json", **headers}
        self.retry = retry
        self.timeout = (
            timeout
            if isinstance(timeout, aiohttp.ClientTimeout)
            else aiohttp.ClientTimeout(sock_connect=timeout, sock_read=timeout)
        )
        self._pool = http_client
        self._proxy = env_proxy(self.base_url)

    async def post_json(self, path: str, payload: Mapping[str, Any]) -> Any:
        """The decoded JSON body of a successful POST."""
        async with self._response(path, payload) as response:
            try:
                body = await response.read()
            except (aiohttp.ClientError, TimeoutError) as error:
                raise _wire_error(error, self.base_url) from error
        try:
            return wire_json.loads(body)
        except ValueError as error:
            raise ModelResponseError(
                f"HTTP {response.status} answer is not JSON: {body[:200]!r}"
            ) from error

    @asynccontextmanager
    async def stream_events(
        self, path: str, payload: Mapping[str, Any]
    ) -> AsyncIterator[AsyncIterator[ServerSentEvent]]:
        """The server-sent events of a successful streamed POST."""
        async with (
            self._response(path, payload) as response,
            aclosing(_guard_stream(iter_sse(_lines(response.content)), self.base_url)) as events,
        ):
            yield events

    @asynccontextmanager
    async def _response(
        self, path: str, payload: Mapping[str, Any]
    ) -> AsyncIterator[aiohttp.ClientResponse]:
        """A successful response, retried until its headers arrive; released on exit.

        Released, not closed: a body read to its end leaves the connection
        for the next call, anything else (an error, a cancellation) closes it.
        """
        async with self.session() as session:
            response = await self._send_with_retries(session, path, payload)
            try:
                yield response
            finally:
                response.release()

    @asynccontextmanager
    async def session(self) -> AsyncIterator[aiohttp.ClientSession]:
        """The pool's session, or one of its own closed on exit."""
        if self._pool is not None:
            yield self._pool.session()
        else:
            async with new_session() as session:
                yield session

    async def _send_with_retries(
        self, session: aiohttp.ClientSession, path: str, payload: Mapping[str, Any]
    ) -> aiohttp.ClientResponse:
        attempt = 0
        while True:
            try:
                return await self._send(session, path, payload)
            except ModelError as error:
                delay = self.retry.delay_before_retry(error, attempt)
                if delay is None:
                    raise
            await self.retry.sleep(delay)
            attempt += 1

    async def _send(
        self, session: aiohttp.ClientSession, path: str, payload: Mapping[str, Any]
    ) -> aiohttp.ClientResponse:
        try:
            response = await session.post(
                self.base_url + path,
                data=wire_json.dumps_bytes(payload),
                headers=self.headers,
                timeout=self.timeout,
                proxy=self._proxy,
            )
        except (aiohttp.ClientError, TimeoutError) as error:
            raise _wire_error(error, self.base_url) from error
        if response.ok:
            return response
        try:
            body = await response.read()
        except (aiohttp.ClientError, TimeoutError) as error:
            raise _wire_error(error, self.base_url) from error
        finally:
            response.release()
        message = provider_message(body, response.reason)
        overflow = context_overflow(response.status, _json_or_none(body), message)
        if overflow is not None and 400 <= response.status < 500:
            raise overflow
        raise ModelHTTPError(
            response.status, message, retry_after=retry_after_seconds(response.headers)
        )


async def _lines(content: aiohttp.StreamReader) -> AsyncIterator[str]:
    """The body's lines without their ends, however the server splits its writes.

    Split here rather than with ``readline``: aiohttp caps a line at its read
    buffer (128 KiB), and one streamed event may carry a whole answer.
    """
    pending = b""
    async for chunk in content.iter_any():
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            yield line.removesuffix(b"\r").decode()
    if pending:
        yield pending.removesuffix(b"\r").decode()


def _wire_error(error: aiohttp.ClientError | TimeoutError, url: str) -> ModelError:
    if isinstance(error, TimeoutError):  # aiohttp's timeouts subclass it too
        return ModelConnectionError(f"the model server at {url} did not answer in time", url=url)
    if isinstance(error, aiohttp.ClientPayloadError) and isinstance(
        error.__cause__, ContentEncodingError
    ):
        return ModelResponseError(f"unreadable response: {error!r}")  # e.g. a corrupt gzip body
    why = _why(error)
    return ModelConnectionError(f"connection to the model server at {url} failed: {why}", url=url)


def _why(error: aiohttp.ClientError) -> str:
    """What went wrong, in words (aiohttp's repr of a refused connection is 300 characters)."""
    if isinstance(error, aiohttp.ClientConnectorDNSError):
        return "unknown host"
    if isinstance(error, aiohttp.ClientConnectorError):
        if isinstance(error.os_error, ConnectionRefusedError):
            return "connection refused"
        return error.os_error.strerror or type(error.os_error).__name__
    return str(error) or type(error).__name__


async def _guard_stream(
    events: AsyncIterator[ServerSentEvent], url: str
) -> AsyncGenerator[ServerSentEvent, None]:
    """Turns transport errors mid-stream (a lost connection...) into docuchat errors."""
    try:
        async for event in events:
            yield event
    except (aiohttp.ClientError, TimeoutError) as error:
        raise _wire_error(error, url) from error


__all__ = [
    "DEFAULT_RETRY",
    "DEFAULT_TIMEOUT",
    "HTTPPool",
    "ProviderClient",
    "RetryPolicy",
    "ServerSentEvent",
    "decode_event",
    "error_message",
    "iter_sse",
    "make_tool_call",
    "new_call_id",
    "provider_message",
    "response_shape",
    "retry_after_seconds",
]
