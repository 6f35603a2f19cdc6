"""Model adapters behind one interface, chosen by a spec string.

=====================  =====================================================
spec                   model
=====================  =====================================================
``openai:<model>``     any OpenAI-compatible chat completions server
                       (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``); the text
                       protocol for tools when llama-server says the model's
                       chat template drops them (:mod:`docuchat.models.tools_or_text`)
``anthropic:<model>``  Anthropic Messages (``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``)
``text:<inner spec>``  the TOOL_CALL / FINAL text protocol over any chat model
``scripted``           the test model (answers "ok"; build ``ScriptedModel`` for more)
=====================  =====================================================

The offline extractive model is a model of the research protocol and lives with it
(``docuchat.research.models.research_model`` knows ``offline``, ``auto`` and every
spec here). ``auto`` picks a model server that answers (see :mod:`docuchat.models.auto`).
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
    TextChunk,
    TokenUsage,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
)
from docuchat.models.scripted import ScriptedModel

if TYPE_CHECKING:
    from docuchat.models.http_pool import HTTPPool
    from docuchat.models.openai import OpenAIChatModel


def get_model(spec: str, *, http_client: HTTPPool | None = None) -> Model:
    """Build the model named by ``spec`` (see the module docstring).

    ``http_client`` is shared by HTTP adapters (a server passes one connection pool).
    """
    kind, _, rest = spec.partition(":")
    if kind == "openai" and rest:
        from docuchat.models.tools_or_text import ToolsOrTextModel

        return ToolsOrTextModel(_openai(rest, http_client))
    if kind == "text" and rest:
        from docuchat.models.text_protocol import TextProtocolModel

        # The protocol is chosen: an OpenAI-compatible inner model goes as it is, never switched.
        inner_kind, _, inner = rest.partition(":")
        if inner_kind == "openai" and inner:
            return TextProtocolModel(_openai(inner, http_client))
        return TextProtocolModel(get_model(rest, http_client=http_client))
    if kind == "anthropic" and rest:
        from docuchat.models.anthropic import AnthropicModel

        return AnthropicModel.from_env(rest, http_client=http_client)
    if spec == "scripted":
        from docuchat.models.scripted import reply

        return ScriptedModel(lambda _request: reply("ok"))
    raise ConfigError(
        f"unknown model spec {spec!r}: use offline, openai:<model>, anthropic:<model>, "
        "text:<spec> or scripted"
    )


def _openai(model: str, http_client: HTTPPool | None) -> OpenAIChatModel:
    from docuchat.models.openai import OpenAIChatModel

    return OpenAIChatModel.from_env(model, http_client=http_client)


__all__ = [
    "AssistantMessage",
    "Message",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "ScriptedModel",
    "StreamItem",
    "TextChunk",
    "TokenUsage",
    "ToolCall",
    "ToolResult",
    "ToolResultsMessage",
    "ToolSpec",
    "UserMessage",
    "get_model",
]
