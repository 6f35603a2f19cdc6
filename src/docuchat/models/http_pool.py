"""A keep-alive connection pool that HTTP adapters share (a server injects one into its model).

aiohttp rather than httpx on this path: with hundreds of model calls in flight,
httpx's pool spends O(connections) per request (about 1.2 ms of CPU per call
here, against 0.17 ms for aiohttp; see ``bench/README.md``).
"""

from __future__ import annotations

import functools
import ssl
import urllib.request
from collections.abc import Mapping
from urllib.parse import urlsplit

import aiohttp
import certifi


class HTTPPool:
    """One ``aiohttp.ClientSession``, opened on first use in the running event loop.

    aiohttp sessions belong to the loop they were created in, and a server
    builds its model before its loop runs; so the session is made lazily, and
    :meth:`aclose` lets a later use open a fresh one (a test client restarting
    the app's lifespan).
    """

    def __init__(self, *, headers: Mapping[str, str] | None = None) -> None:
        self._headers = dict(headers or {})
        self._session: aiohttp.ClientSession | None = None

    @property
    def is_open(self) -> bool:
        return self._session is not None and not self._session.closed

    def session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            # limit=0: one connection per call in flight, or concurrent runs queue for sockets.
            self._session = new_session(limit=0, keepalive_timeout=30, headers=self._headers)
        return self._session

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


def new_session(
    *, headers: Mapping[str, str] | None = None, limit: int = 100, keepalive_timeout: float = 15
) -> aiohttp.ClientSession:
    """A session that verifies TLS against the certifi bundle, as httpx did."""
    connector = aiohttp.TCPConnector(
        limit=limit, keepalive_timeout=keepalive_timeout, ssl=_tls_context()
    )
    return aiohttp.ClientSession(connector=connector, headers=headers)


def env_proxy(url: str) -> str | None:
    """The proxy that ``HTTP(S)_PROXY`` / ``NO_PROXY`` name for ``url``, as httpx honoured them.

    Read once per adapter: aiohttp's ``trust_env`` reads the environment again
    for every request, which cost about 1 ms of CPU per served conversation.
    """
    parts = urlsplit(url)
    proxy = urllib.request.getproxies_environment().get(parts.scheme)
    if not proxy or urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return proxy


@functools.cache
def _tls_context() -> ssl.SSLContext:
    # Loading the CA bundle takes tens of milliseconds: once per process, not once per call.
    return ssl.create_default_context(cafile=certifi.where())
