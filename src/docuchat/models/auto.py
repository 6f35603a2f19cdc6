"""``--model auto``: a model server that answers here, else the offline model.

Tried in order: the server ``OPENAI_BASE_URL`` names, then the default local
addresses of Ollama (11434), llama.cpp's llama-server (8080), LM Studio (1234)
and vLLM (8000). The first whose ``GET /v1/models`` lists a chat model is
used. A closed local port refuses at once, so when nothing runs the search
costs well under a millisecond per address (``bench/auto_model.py``).
"""

from __future__ import annotations

import http.client
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from docuchat.models.base import Model
    from docuchat.models.http_pool import HTTPPool

LOCAL_SERVERS = (
    ("Ollama", "http://127.0.0.1:11434/v1"),
    ("llama.cpp", "http://127.0.0.1:8080/v1"),
    ("LM Studio", "http://127.0.0.1:1234/v1"),
    ("vLLM", "http://127.0.0.1:8000/v1"),
)
CONFIGURED_TIMEOUT = 2.0
"""Seconds for the server the user configured, which may be remote."""
LOCAL_TIMEOUT = 0.5
"""Seconds for a default local address: something listening there must answer quickly."""
_NOT_CHAT = ("embed", "rerank", "whisper")


@dataclass(frozen=True, slots=True)
class AutoChoice:
    """The model ``auto`` settled on, and why, in words for people."""

    model: str | None
    """The served model's id; None for the offline model."""
    base_url: str | None
    why: str

    @property
    def spec(self) -> str:
        return f"openai:{self.model}" if self.model else "offline"

    def served_model(self, *, http_client: HTTPPool | None = None) -> Model | None:
        """The adapter for the server's model; None when no server answered.

        It speaks the text protocol for tools if the server says its template drops them
        (:class:`~docuchat.models.tools_or_text.ToolsOrTextModel`)."""
        if self.model is None or self.base_url is None:
            return None
        from docuchat.models.openai import OpenAIChatModel
        from docuchat.models.tools_or_text import ToolsOrTextModel

        api_key = os.environ.get("OPENAI_API_KEY") or None
        return ToolsOrTextModel(
            OpenAIChatModel(
                self.model, api_key=api_key, base_url=self.base_url, http_client=http_client
            )
        )


def choose_model(
    environ: Mapping[str, str] = os.environ,
    local_servers: Sequence[tuple[str, str]] | None = None,
) -> AutoChoice:
    """The first server that answers with a chat model; else the offline model.

    ``local_servers``: (name, base URL) pairs tried after the configured server
    (default: :data:`LOCAL_SERVERS`).
    """
    configured = environ.get("OPENAI_BASE_URL")
    candidates = [("OPENAI_BASE_URL", configured, CONFIGURED_TIMEOUT)] if configured else []
    local = LOCAL_SERVERS if local_servers is None else local_servers
    candidates += [(name, url, LOCAL_TIMEOUT) for name, url in local]
    api_key = environ.get("OPENAI_API_KEY") or None
    for name, base_url, timeout in candidates:
        model = served_model(base_url, api_key, timeout)
        if model is not None:
            return AutoChoice(model, base_url, f"{model} served by {name} at {base_url}")
    tried = ", ".join(name for name, _url, _timeout in candidates)
    return AutoChoice(None, None, f"no model server answered (tried {tried})")


def served_model(base_url: str, api_key: str | None, timeout: float) -> str | None:
    """The first chat model ``GET {base_url}/models`` lists; None if nothing useful answers."""
    listing = _get_json(f"{base_url.rstrip('/')}/models", api_key, timeout)
    entries = listing.get("data") if isinstance(listing, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict) or entry.get("owned_by") == "docuchat":
            continue  # docuchat's own OpenAI-compatible endpoint is not a model to ask
        model = entry.get("id")
        if isinstance(model, str) and model and not any(w in model.lower() for w in _NOT_CHAT):
            return model
    return None


def _get_json(url: str, api_key: str | None, timeout: float) -> Any:
    parts = urlsplit(url)
    connection_type = (
        http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    )
    connection = connection_type(parts.hostname or "", parts.port, timeout=timeout)
    headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        connection.request("GET", parts.path or "/", headers=headers)
        response = connection.getresponse()
        if response.status != 200:
            return None
        return json.loads(response.read())
    except (OSError, http.client.HTTPException, ValueError):
        return None
    finally:
        connection.close()


__all__ = ["LOCAL_SERVERS", "AutoChoice", "choose_model", "served_model"]
