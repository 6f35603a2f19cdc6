"""The TOOL_CALL / FINAL text protocol, for chat models without native function calling.

The tools are described in the system prompt and the model answers in lines::

    TOOL_CALL {"tool": "search_docs", "input": {"query": "..."}}
    FINAL {"answer": "...", "citations": [1, 2]}

History reaches the inner model as plain chat: earlier tool calls as their
TOOL_CALL lines, tool results as a user message. A reply in neither form gets
one reminder; if the second reply is no better, the response carries the raw
text with ``finish_reason="protocol_error"`` and the loop forces synthesis.
When tools are off (``tool_choice="none"``) only FINAL is asked for and plain
text is accepted as the answer, unless it imitates a tool result (a TOOL_RESULT
line, which only docuchat writes): that counts as not following the protocol.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
    UseTool,
)
from docuchat.models.http import new_call_id
from docuchat.models.tokens import TokenEstimator
from docuchat.models.window import ContextWindow, context_window_of

PROTOCOL_ERROR = "protocol_error"

# A directive starts a line, possibly after indentation or markdown ("- ", "**", "`");
# its JSON may start on the next line.
_LINE_START = r"^[ \t>*`-]*"
_DIRECTIVE = re.compile(_LINE_START + r"(TOOL_CALL|FINAL)\b[*`]*[ \t]*:?\s*", re.MULTILINE)
_DECODER = json.JSONDecoder()
# The line that opens a tool result in the transcript: docuchat writes it, never the model.
# A small model imitating the transcript writes one and goes on with invented passage text.
_RESULT = "TOOL_RESULT"
_RESULT_LINE = re.compile(_LINE_START + _RESULT + r"\b", re.MULTILINE)

_FINAL_FORMAT = 'FINAL {"answer": "<your answer>", "citations": [<numbers of the sources cited>]}'
_REPLY_FORMAT = (
    "## How to reply\n"
    "Reply only with lines of these forms, each a single line of JSON:\n"
    'TOOL_CALL {"tool": "<tool name>", "input": {<arguments>}}\n'
    "    to call a tool; one line per call. The results come in the next message.\n"
    f"{_FINAL_FORMAT}\n"
    "    when you can answer. Never write FINAL in the same reply as TOOL_CALL lines."
)
_FINAL_ONLY_FORMAT = (
    f"## How to reply\nTools are not available now. Answer with exactly one line:\n{_FINAL_FORMAT}"
)
_TOOLS_REMINDER = (
    "Your reply did not follow the protocol. Reply again, only with TOOL_CALL lines "
    "or one FINAL line, each a single line of JSON as described."
)
_FINAL_REMINDER = (
    f"Your reply did not follow the protocol. Reply again with one line:\n{_FINAL_FORMAT}"
)


@dataclass(frozen=True, slots=True)
class ProtocolCall:
    tool: str
    input: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ProtocolReply:
    """What a reply says: tool calls, or a final answer with citation numbers."""

    calls: tuple[ProtocolCall, ...] = ()
    answer: str | None = None
    citations: tuple[int, ...] = ()


def parse_reply(text: str, *, final_only: bool = False) -> ProtocolReply | None:
    """The directives in a model's reply, or None when it follows no protocol form. Never raises.

    Valid TOOL_CALL lines win over a FINAL line in the same reply (an answer
    written before seeing the results is a guess). Invalid directives are
    skipped. With ``final_only``, TOOL_CALL lines are ignored and a reply
    without any directive is taken as the plain answer, unless it writes a
    TOOL_RESULT line: that is a made-up tool result, not an answer.
    """
    calls: list[ProtocolCall] = []
    final: ProtocolReply | None = None
    saw_directive = False
    for keyword, value in _directives(text):
        saw_directive = True
        if keyword == "TOOL_CALL":
            call = _as_call(value)
            if call is not None:
                calls.append(call)
        elif final is None:
            final = _as_final(value)
    if calls and not final_only:
        return ProtocolReply(calls=tuple(calls))
    if final is not None:
        return final
    if final_only and not saw_directive and text.strip() and not _RESULT_LINE.search(text):
        return ProtocolReply(answer=text.strip())
    return None


def _directives(text: str) -> Iterator[tuple[str, Any]]:
    """Each directive keyword with the JSON value that follows it (None when that is not JSON)."""
    for match in _DIRECTIVE.finditer(text):
        try:
            value, _ = _DECODER.raw_decode(text, match.end())
        except (ValueError, RecursionError):
            value = None
        yield match.group(1), value


def _as_call(value: Any) -> ProtocolCall | None:
    if not isinstance(value, dict):
        return None
    tool, arguments = value.get("tool"), value.get("input", {})
    if not isinstance(tool, str) or not tool.strip() or not isinstance(arguments, dict):
        return None
    return ProtocolCall(tool.strip(), arguments)


def _as_final(value: Any) -> ProtocolReply | None:
    if not isinstance(value, dict):
        return None
    answer = value.get("answer")
    if not isinstance(answer, str) or not answer.strip():
        return None
    citations = value.get("citations")
    numbers = (
        tuple(n for n in citations if isinstance(n, int) and not isinstance(n, bool))
        if isinstance(citations, list)
        else ()
    )
    return ProtocolReply(answer=answer, citations=numbers)


def render_call(call: ToolCall) -> str:
    """The TOOL_CALL line for a tool call."""
    payload = {"tool": call.name, "input": dict(call.arguments)}
    return "TOOL_CALL " + json.dumps(payload, ensure_ascii=False)


def render_tools(tools: Sequence[ToolSpec]) -> str:
    """One entry per tool: name, purpose, and the JSON schema of its input."""
    return "\n".join(
        f"- {tool.name}: {tool.description}\n  input schema: {json.dumps(dict(tool.parameters))}"
        for tool in tools
    )


def plain_request(request: ModelRequest) -> ModelRequest:
    """``request`` as plain chat for a model without tools: the protocol is in the system prompt."""
    if _final_only(request):
        instructions = _FINAL_ONLY_FORMAT
    else:
        tools = render_tools(request.tools)
        instructions = f"## Tools\nYou can call these tools:\n{tools}\n\n{_REPLY_FORMAT}"
        if isinstance(request.tool_choice, UseTool):
            instructions += (
                f"\n\nNow call the tool {request.tool_choice.name}: reply with TOOL_CALL."
            )
    system = f"{request.system}\n\n{instructions}" if request.system else instructions
    messages = (_plain_message(message) for message in request.messages)
    return ModelRequest(
        system=system,
        messages=_merge_consecutive([m for m in messages if m is not None]),
        max_output_tokens=request.max_output_tokens,
    )


def _final_only(request: ModelRequest) -> bool:
    return request.tool_choice == "none" or not request.tools


def _plain_message(message: Message) -> UserMessage | AssistantMessage | None:
    if isinstance(message, UserMessage):
        return message
    if isinstance(message, AssistantMessage):
        if message.tool_calls:
            lines = [message.text] if message.text else []
            lines += [render_call(call) for call in message.tool_calls]
            return AssistantMessage("\n".join(lines))
        if not message.text:
            return None
        answer = json.dumps({"answer": message.text}, ensure_ascii=False)
        return AssistantMessage(f"FINAL {answer}")
    return UserMessage(results_text(message))


def results_text(message: ToolResultsMessage) -> str:
    """Tool results as plain text, for a model that is not shown ``tool`` messages."""
    results = "\n\n".join(
        f"{_RESULT} {result.name}{' (error)' if result.is_error else ''}\n{result.content}"
        for result in message.results
    )
    return f"Results of your tool calls:\n\n{results}"


def _merge_consecutive(messages: Sequence[Message]) -> list[Message]:
    # Many chat templates of models without function calling insist on alternating roles.
    merged: list[Message] = []
    for message in messages:
        previous = merged[-1] if merged else None
        if isinstance(message, UserMessage) and isinstance(previous, UserMessage):
            merged[-1] = UserMessage(f"{previous.content}\n\n{message.content}")
        elif isinstance(message, AssistantMessage) and isinstance(previous, AssistantMessage):
            merged[-1] = AssistantMessage(f"{previous.text}\n\n{message.text}")
        else:
            merged.append(message)
    return merged


class TextProtocolModel:
    """Tool calling over any chat model by the TOOL_CALL / FINAL text protocol."""

    def __init__(self, inner: Model) -> None:
        self.inner = inner
        self.name = f"text:{inner.name}"
        self.token_estimator = TokenEstimator()

    async def context_window(self) -> ContextWindow | None:
        return await context_window_of(self.inner)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        final_only = _final_only(request)
        plain = plain_request(request)
        first = await self.inner.complete(plain)
        reply = parse_reply(first.text, final_only=final_only)
        if reply is not None:
            return _response(reply, first, first.usage, requests=1)
        reminder = UserMessage(_FINAL_REMINDER if final_only else _TOOLS_REMINDER)
        retry = ModelRequest(
            system=plain.system,
            messages=_merge_consecutive([*plain.messages, AssistantMessage(first.text), reminder]),
            max_output_tokens=request.max_output_tokens,
        )
        second = await self.inner.complete(retry)
        usage = _total_usage(first.usage, second.usage)
        reply = parse_reply(second.text, final_only=final_only)
        if reply is not None:
            return _response(reply, second, usage, requests=2)
        return ModelResponse(
            text=second.text,
            usage=usage,
            finish_reason=PROTOCOL_ERROR,
            model=second.model,
            requests=2,
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        """The answer arrives whole: it can only be told apart from tool calls once parsed."""
        response = await self.complete(request)
        if response.text and response.finish_reason == "stop":
            yield TextChunk(response.text)
        yield response


def _response(
    reply: ProtocolReply, raw: ModelResponse, usage: TokenUsage | None, *, requests: int
) -> ModelResponse:
    if reply.calls:
        calls = tuple(
            ToolCall(id=new_call_id(), name=call.tool, arguments=call.input) for call in reply.calls
        )
        return ModelResponse(
            tool_calls=calls,
            usage=usage,
            finish_reason="tool_calls",
            model=raw.model,
            requests=requests,
        )
    return ModelResponse(
        text=reply.answer or "",
        usage=usage,
        finish_reason="stop",
        model=raw.model,
        extra={"citations": list(reply.citations)},
        requests=requests,
    )


def _total_usage(first: TokenUsage | None, second: TokenUsage | None) -> TokenUsage | None:
    if first is None or second is None:
        return first or second
    return first + second


__all__ = [
    "PROTOCOL_ERROR",
    "ProtocolCall",
    "ProtocolReply",
    "TextProtocolModel",
    "parse_reply",
    "plain_request",
    "render_call",
    "results_text",
]
