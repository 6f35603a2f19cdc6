"""The provider-neutral model interface: messages in, one response out.

The agent loop only ever sees these types. Each adapter maps them to its
provider's wire format exactly (OpenAI: an assistant message with
``tool_calls`` then one ``tool`` message per call id; Anthropic: one assistant
message with all ``tool_use`` blocks, then one user message with all
``tool_result`` blocks).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call proposed by the model."""

    id: str
    name: str
    arguments: Mapping[str, Any]
    # The raw argument text when it was not valid JSON; the loop reports it to the model.
    raw_arguments: str | None = None


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The result of executing one tool call, as the model will see it."""

    call_id: str
    name: str
    content: str
    is_error: bool = False
    value: Any = field(default=None, compare=False, repr=False)
    """The tool's typed value behind ``content``, for in-process readers; never sent to a
    provider, and dropped when the result is evicted from the context."""


@dataclass(frozen=True, slots=True)
class UserMessage:
    content: str
    role: Literal["user"] = "user"
    origin: Literal["user", "runtime"] = "user"
    """``runtime``: a prompt the runtime (or an application on it) injected, not the user's
    words. Providers see an ordinary user message; readers of the transcript tell them apart
    by this mark, never by the words."""


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    role: Literal["assistant"] = "assistant"


@dataclass(frozen=True, slots=True)
class ToolResultsMessage:
    """All results of one iteration, in call order."""

    results: tuple[ToolResult, ...]
    role: Literal["tool"] = "tool"


Message = UserMessage | AssistantMessage | ToolResultsMessage


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """What the model is told about a tool: a name, a description and a JSON schema."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class UseTool:
    """A forced tool choice: the model must call this tool now.

    Servers with grammar-constrained decoding (llama.cpp) then make even a small
    model produce a well-formed call.
    """

    name: str


ToolChoice = Literal["auto", "none"] | UseTool
""""auto": the model decides; "none": a plain-text answer (tools are not sent at all)."""


@dataclass(frozen=True, slots=True)
class ModelRequest:
    system: str
    messages: Sequence[Message]
    tools: Sequence[ToolSpec] = ()
    tool_choice: ToolChoice = "auto"
    max_output_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class TokenUsage:
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens
        )

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class ModelResponse:
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    # None when the provider reported no usage.
    usage: TokenUsage | None = None
    finish_reason: str | None = None
    model: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    requests: int = 1
    """Provider calls behind this response (the text protocol's reminder makes two); the
    usage covers them all, so a response of several is no measure of one request's size."""

    @property
    def is_empty(self) -> bool:
        return not self.text.strip() and not self.tool_calls


@dataclass(frozen=True, slots=True)
class TextChunk:
    """A piece of answer text streamed from the model (the run turns it into a
    ``text_delta`` event)."""

    text: str


StreamItem = TextChunk | ModelResponse
"""``Model.stream`` yields text deltas and ends with exactly one complete ``ModelResponse``."""


@runtime_checkable
class Model(Protocol):
    """Anything that can answer a ``ModelRequest``.

    ``complete`` returns the whole response; ``stream`` yields ``TextChunk``
    items and finishes with the assembled ``ModelResponse``. Both raise
    :class:`docuchat.errors.ModelError` subclasses on failure. Cancelling the
    awaiting task must abort the in-flight request.
    """

    name: str

    async def complete(self, request: ModelRequest) -> ModelResponse: ...

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]: ...


__all__ = [
    "AssistantMessage",
    "Message",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "StreamItem",
    "TextChunk",
    "TokenUsage",
    "ToolCall",
    "ToolChoice",
    "ToolResult",
    "ToolResultsMessage",
    "ToolSpec",
    "UseTool",
    "UserMessage",
]
