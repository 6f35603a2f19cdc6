"""Model adapters behind one interface, chosen by a spec string.

=====================  =====================================================
spec                   model
=====================  =====================================================
``openai:<model>``     any OpenAI-compatible chat completions server
                       (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``)
``anthropic:<model>``  Anthropic Messages (``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``)
``text:<inner spec>``  the TOOL_CALL / FINAL text protocol over any chat model
``scripted``           the test model (answers "ok"; build ``ScriptedModel`` for more)
``offline``            the deterministic extractive model (needs the research tools)
=====================  =====================================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docuchat.errors import ConfigError
from docuchat.models.base import (
    AssistantMessage,
    Message,
    Model,
    ModelRequest,
    ModelResponse,
    StreamItem,
    TextDelta,
    TokenUsage,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
)
from docuchat.models.scripted import ScriptedModel

if TYPE_CHECKING:
    from docuchat.embeddings import Embedder
    from docuchat.models.http_pool import HTTPPool


def get_model(
    spec: str,
    *,
    http_client: HTTPPool | None = None,
    embedder: Embedder | None = None,
) -> Model:
    """Build the model named by ``spec`` (see the module docstring).

    ``http_client`` is shared by HTTP adapters (a server passes one
    connection pool); ``embedder`` lets the offline model rank sentences by meaning too.
    """
    kind, _, rest = spec.partition(":")
    if kind == "openai" and rest:
        from docuchat.models.openai import OpenAIChatModel

        return OpenAIChatModel.from_env(rest, http_client=http_client)
    if kind == "anthropic" and rest:
        from docuchat.models.anthropic import AnthropicModel

        return AnthropicModel.from_env(rest, http_client=http_client)
    if kind == "text" and rest:
        from docuchat.models.text_protocol import TextProtocolModel

        return TextProtocolModel(get_model(rest, http_client=http_client))
    if spec == "scripted":
        from docuchat.models.scripted import reply

        return ScriptedModel(lambda _request: reply("ok"))
    if spec == "offline":
        from docuchat.models.offline import OfflineModel

        return OfflineModel(embedder=embedder)
    raise ConfigError(
        f"unknown model spec {spec!r}: use openai:<model>, anthropic:<model>, "
        "text:<spec>, scripted or offline"
    )


__all__ = [
    "AssistantMessage",
    "Message",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "ScriptedModel",
    "StreamItem",
    "TextDelta",
    "TokenUsage",
    "ToolCall",
    "ToolResult",
    "ToolResultsMessage",
    "ToolSpec",
    "UserMessage",
    "get_model",
]
