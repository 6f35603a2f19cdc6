"""How ``docuchat serve`` runs uvicorn: its HTTP protocol with a deadline on request heads.

uvicorn bounds the wait between requests (keep-alive) but not a request's head:
a client that opens a connection and sends nothing, or trickles its headers,
holds the connection for ever. Here a head must arrive whole within
``read_timeout`` seconds of the connection, or of the request's first byte;
the request guard then bounds the body.

The protocol is a class uvicorn imports in each of ``--workers``' processes, so
its deadline is a class attribute: set by ``uvicorn_options`` in this process,
read from ``DOCUCHAT_READ_TIMEOUT`` (which the parent exports) in the others.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from docuchat.server.settings import ServerSettings

KEEP_ALIVE_SECONDS = 5
SHUTDOWN_GRACE_SECONDS = 5


class HeadDeadlineProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol; the connection closes when a head is too slow."""

    head_timeout: float = float(
        os.environ.get("DOCUCHAT_READ_TIMEOUT")
        or ServerSettings.model_fields["read_timeout"].default
    )
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.head_timeout, self._head_too_slow)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            self.transport.close()


def uvicorn_options(settings: ServerSettings) -> dict[str, Any]:
    """What ``docuchat serve`` gives uvicorn besides the app and the address."""
    HeadDeadlineProtocol.head_timeout = settings.read_timeout
    return {
        "http": HeadDeadlineProtocol,
        "timeout_keep_alive": KEEP_ALIVE_SECONDS,
        "timeout_graceful_shutdown": SHUTDOWN_GRACE_SECONDS,
    }
