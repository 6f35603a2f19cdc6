"""The HTTP server: the API, live research steps over SSE, an OpenAI-compatible endpoint
and the web page. ``docuchat serve`` runs it.

``create_app`` (and FastAPI with it) is imported when first asked for: reading the
server's settings, as every command that checks the config file may, stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docuchat.server.settings import ServerSettings

if TYPE_CHECKING:
    from docuchat.server.app import create_app


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from docuchat.server.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ServerSettings", "create_app"]
