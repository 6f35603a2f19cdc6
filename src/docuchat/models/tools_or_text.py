"""Native tool calls, or the text protocol when the server says its chat template drops tools.

llama.cpp's llama-server silently leaves out the ``tools`` of a request when the
model's chat template has no place for them (``/props`` says
``chat_template_caps.supports_tools: false``): the model never sees a tool and
never calls one. ``openai:<model>`` (and ``--model auto`` finding such a server)
then speaks the TOOL_CALL / FINAL text protocol to it for every request that
involves tools, decided by the adapter's probe of the server, which happens on
first use; it then asks exactly as ``text:openai:<model>`` would. Requests with no
tools, calls or results in them go as they are. ``text:<spec>``
is the explicit choice of the protocol and is not wrapped.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

from docuchat.models.base import (
    AssistantMessage,
    Model,
    ModelRequest,
    ModelResponse,
    StreamItem,
    ToolResultsMessage,
)
from docuchat.models.openai import OpenAIChatModel
from docuchat.models.text_protocol import TextProtocolModel
from docuchat.models.tokens import TokenEstimator
from docuchat.models.window import ContextWindow


@runtime_checkable
class ExplainsProtocol(Protocol):
    """A model that may speak another protocol than the one its spec names, and says why."""

    @property
    def protocol_note(self) -> str: ...


class ToolsOrTextModel:
    """An OpenAI-compatible model: native tools, or the text protocol if its server drops them."""

    def __init__(self, native: OpenAIChatModel) -> None:
        self.native = native
        self.name = native.name
        self.text = TextProtocolModel(native)
        # One estimator whichever protocol answers: the switch happens before the first request.
        self.token_estimator = TokenEstimator()

    async def context_window(self) -> ContextWindow:
        return await self.native.context_window()

    @property
    def protocol_note(self) -> str:
        """Why tool requests go over the text protocol; empty while they go natively."""
        server = self.native.known_server
        if server is None or not server.drops_tools:
            return ""
        return (
            f"llama.cpp's chat template for {self.native.model} drops tools: "
            "using the text protocol"
        )

    async def complete(self, request: ModelRequest) -> ModelResponse:
        return await (await self._speaker(request)).complete(request)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        speaker = await self._speaker(request)
        async for item in speaker.stream(request):
            yield item

    async def _speaker(self, request: ModelRequest) -> Model:
        if not _involves_tools(request):
            return self.native
        server = await self.native.server_info()
        return self.text if server is not None and server.drops_tools else self.native


def _involves_tools(request: ModelRequest) -> bool:
    """Whether ``request`` belongs to a conversation with tools.

    It offers tools, turns them off (``tool_choice="none"``: a run's answer without more
    calls, which must come in the protocol the run spoke), or carries calls or results (the
    pipeline's answer does: its fixed search and opened passages). A request without any
    goes natively, streamed as it is.
    """
    return (
        bool(request.tools)
        or request.tool_choice == "none"
        or any(
            isinstance(message, ToolResultsMessage)
            or (isinstance(message, AssistantMessage) and bool(message.tool_calls))
            for message in request.messages
        )
    )


def protocol_note(model: Model) -> str:
    """What ``model`` says about the protocol it speaks instead of its spec's; empty if nothing."""
    return model.protocol_note if isinstance(model, ExplainsProtocol) else ""


__all__ = ["ExplainsProtocol", "ToolsOrTextModel", "protocol_note"]
