"""What an OpenAI-compatible server is, and what it says about its model, asked once.

Each server people run locally has its own way to tell the context window of
the loaded model, beside its OpenAI-compatible ``/v1`` routes:

==================  ===========================================================
server              how it is recognised, and where the window is read
==================  ===========================================================
llama.cpp           ``GET /props``: ``default_generation_settings.n_ctx`` (the
(llama-server)      slot's window); else ``/v1/models`` ``meta.n_ctx`` /
                    ``meta.n_ctx_train``; whether the chat template takes
                    tools from ``chat_template_caps.supports_tools``
llama-cpp-python    ``GET /openapi.json`` titled "llama.cpp Python API"; it
                    reports no window (its default ``--n_ctx`` is 2048)
Ollama              ``GET /api/version``; the window from ``GET /api/ps`` (the
                    loaded model's ``context_length``), else ``num_ctx`` in
                    ``POST /api/show``'s parameters
vLLM                ``/v1/models`` entries with ``max_model_len``
LM Studio           ``GET /api/v0/models/{model}``: ``loaded_context_length``
others              ``/v1/models`` entries with ``context_length``,
                    ``context_window`` or ``max_context_length`` (OpenRouter,
                    Groq, Mistral)
==================  ===========================================================

Every probe has a short timeout and any failure only means "not this server".
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

import aiohttp

ServerKind = Literal["llama.cpp", "llama-cpp-python", "ollama", "vllm", "lm-studio", "other"]

PROBE_TIMEOUT = aiohttp.ClientTimeout(total=2.0)
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """What one server told about itself and a model it serves."""

    kind: ServerKind
    models: tuple[str, ...] = ()
    context_window: int | None = None
    """The model's window in tokens as the server reports it; None when it does not say."""
    window_source: str = ""
    supports_tools: bool | None = None
    """Whether the model's chat template takes ``tools`` (llama.cpp's ``/props``
    ``chat_template_caps.supports_tools``); None when the server does not say. llama-server
    drops the tools of a request silently when its template has no place for them."""

    @property
    def drops_tools(self) -> bool:
        """Whether the server says the tools of a request never reach the model."""
        return self.supports_tools is False

    @property
    def renders_tool_results(self) -> bool:
        """Whether the server's chat template shows ``tool`` messages to the model.

        llama-cpp-python's ``chatml-function-calling`` format drops them from the
        prompt (and the GGUF's own templates mostly ignore tools), so the model
        would never see a result; it gets them as a user message instead.
        """
        return self.kind != "llama-cpp-python"

    @property
    def names_forced_tools(self) -> bool:
        """Whether ``tool_choice`` may name the function to call.

        llama-server reads only "auto", "none" and "required": it takes an object
        for the wrong type and answers as for "auto", so a forced call is not forced.
        """
        return self.kind != "llama.cpp"


def api_root(base_url: str) -> str:
    """The server's root: ``http://host:port/v1`` -> ``http://host:port``."""
    return base_url.rstrip("/").removesuffix("/v1")


def is_local(base_url: str) -> bool:
    """Whether ``base_url`` is on this machine or a private network."""
    host = urlsplit(base_url).hostname or ""
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private


async def probe_server(
    session: aiohttp.ClientSession,
    base_url: str,
    model: str | None,
    headers: Mapping[str, str] | None = None,
) -> ServerInfo | None:
    """What the server at ``base_url`` is; None when it does not answer ``/models`` at all."""
    prober = _Prober(session, base_url, dict(headers or {}))
    listing, props, openapi, ollama = await asyncio.gather(
        prober.get_json(f"{base_url.rstrip('/')}/models"),
        prober.get_json(f"{prober.root}/props"),
        prober.get_json(f"{prober.root}/openapi.json"),
        prober.get_json(f"{prober.root}/api/version"),
    )
    entries = _entries(listing)
    if entries is None:
        return None
    models = tuple(str(entry.get("id")) for entry in entries if entry.get("id"))
    entry = _entry_for(entries, model)
    if isinstance(props, dict) and "default_generation_settings" in props:
        window, source = _llama_cpp_window(props, entry)
        return ServerInfo("llama.cpp", models, window, source, _template_supports_tools(props))
    if isinstance(openapi, dict) and "llama.cpp Python" in str(
        openapi.get("info", {}).get("title")
    ):
        return ServerInfo("llama-cpp-python", models)
    if isinstance(ollama, dict) and "version" in ollama:
        return _info("ollama", models, *await prober.ollama_window(model))
    if "max_model_len" in entry:
        return _info("vllm", models, positive_int(entry["max_model_len"]), "vLLM max_model_len")
    lm_studio = await prober.get_json(f"{prober.root}/api/v0/models/{model}") if model else None
    if isinstance(lm_studio, dict) and "max_context_length" in lm_studio:
        loaded = positive_int(lm_studio.get("loaded_context_length"))
        return _info("lm-studio", models, loaded, "LM Studio loaded_context_length")
    for key in ("context_length", "context_window", "max_context_length"):
        if key in entry:
            return _info("other", models, positive_int(entry[key]), f"/models {key}")
    return ServerInfo("other", models)


def _info(kind: ServerKind, models: tuple[str, ...], window: int | None, source: str) -> ServerInfo:
    return ServerInfo(kind, models, window, source if window else "")


class _Prober:
    def __init__(
        self, session: aiohttp.ClientSession, base_url: str, headers: dict[str, str]
    ) -> None:
        self.session = session
        self.root = api_root(base_url)
        self.headers = headers

    async def get_json(self, url: str) -> Any:
        return await self._json(self.session.get(url, headers=self.headers, timeout=PROBE_TIMEOUT))

    async def post_json(self, url: str, payload: Mapping[str, Any]) -> Any:
        request = self.session.post(
            url, json=dict(payload), headers=self.headers, timeout=PROBE_TIMEOUT
        )
        return await self._json(request)

    @staticmethod
    async def _json(request: Any) -> Any:
        try:
            async with request as response:
                if response.status != 200:
                    return None
                return await response.json(content_type=None)
        except (aiohttp.ClientError, TimeoutError, ValueError):
            return None

    async def ollama_window(self, model: str | None) -> tuple[int | None, str]:
        running = await self.get_json(f"{self.root}/api/ps")
        for loaded in (running or {}).get("models") or ():
            if model in (loaded.get("name"), loaded.get("model")):
                window = positive_int(loaded.get("context_length"))
                if window:
                    return window, "Ollama /api/ps context_length"
        shown = await self.post_json(f"{self.root}/api/show", {"model": model}) if model else None
        parameters = shown.get("parameters") if isinstance(shown, dict) else None
        match = _NUM_CTX.search(parameters) if isinstance(parameters, str) else None
        if match:
            return int(match.group(1)), "Ollama /api/show num_ctx"
        return None, ""


def _entries(listing: Any) -> list[dict[str, Any]] | None:
    """The model entries of an OpenAI ``/models`` list (Ollama's native list says ``models``)."""
    if not isinstance(listing, dict):
        return None
    data = listing.get("data")
    if not isinstance(data, list):
        return None
    return [entry for entry in data if isinstance(entry, dict)]


def _entry_for(entries: list[dict[str, Any]], model: str | None) -> dict[str, Any]:
    for entry in entries:
        if entry.get("id") == model:
            return entry
    return entries[0] if len(entries) == 1 else {}


def _llama_cpp_window(props: dict[str, Any], entry: dict[str, Any]) -> tuple[int | None, str]:
    settings = props.get("default_generation_settings")
    window = positive_int(settings.get("n_ctx")) if isinstance(settings, dict) else None
    if window:
        return window, "llama.cpp /props n_ctx"
    meta = entry.get("meta")
    if not isinstance(meta, dict):
        return None, ""
    for key in ("n_ctx", "n_ctx_train"):
        window = positive_int(meta.get(key))
        if window:
            return window, f"llama.cpp /v1/models meta.{key}"
    return None, ""


def _template_supports_tools(props: dict[str, Any]) -> bool | None:
    caps = props.get("chat_template_caps")
    supported = caps.get("supports_tools") if isinstance(caps, dict) else None
    return supported if isinstance(supported, bool) else None


def positive_int(value: Any) -> int | None:
    """``value`` when it is a positive integer (not a bool); else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


__all__ = [
    "PROBE_TIMEOUT",
    "ServerInfo",
    "ServerKind",
    "api_root",
    "is_local",
    "positive_int",
    "probe_server",
]
