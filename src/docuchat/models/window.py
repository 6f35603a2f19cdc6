"""The context window of the model in use: configured, reported by its server, or a safe default.

The agent loop's context discipline (evict old tool results, stop calling
tools before the window is full) needs the window in tokens. In order:

1. what the user configured (``context_window`` in the config, ``--context-window``);
2. what the model's server reports (see :mod:`docuchat.models.servers`), or the
   documented window of the hosted APIs' current models;
3. :data:`DEFAULT_WINDOW` for a model whose window nobody tells: the smallest
   default of the local servers (llama-cpp-python's ``--n_ctx``, older Ollama).

Models with no window (the offline and scripted models) report None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from docuchat.models.base import Model

DEFAULT_WINDOW = 2048
HOSTED_WINDOWS = {"api.openai.com": 128_000, "api.anthropic.com": 200_000}
"""The smallest window of each hosted API's current chat models."""


@dataclass(frozen=True, slots=True)
class ContextWindow:
    tokens: int
    source: str
    """Where the figure comes from, for people: "configured", "llama.cpp /props n_ctx"..."""


UNKNOWN_WINDOW = ContextWindow(DEFAULT_WINDOW, "default for a model whose window is not reported")


@runtime_checkable
class KnowsContextWindow(Protocol):
    """A model that can tell its context window (it may ask its server once)."""

    async def context_window(self) -> ContextWindow | None: ...


async def context_window_of(model: Model, configured: int | None = None) -> ContextWindow | None:
    """The window to enforce for ``model``; None when the model has none."""
    if configured:
        return ContextWindow(configured, "configured")
    if isinstance(model, KnowsContextWindow):
        return await model.context_window()
    return None


def hosted_window(host: str | None) -> ContextWindow | None:
    tokens = HOSTED_WINDOWS.get(host or "")
    return ContextWindow(tokens, f"{host}: its current models' window") if tokens else None


__all__ = [
    "DEFAULT_WINDOW",
    "HOSTED_WINDOWS",
    "UNKNOWN_WINDOW",
    "ContextWindow",
    "KnowsContextWindow",
    "context_window_of",
    "hosted_window",
]
