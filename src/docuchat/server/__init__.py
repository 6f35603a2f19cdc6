"""The HTTP server: the API, live research steps over SSE, an OpenAI-compatible endpoint
and the web page. ``docuchat serve`` runs it."""

from docuchat.server.app import create_app
from docuchat.server.settings import ServerSettings

__all__ = ["ServerSettings", "create_app"]
