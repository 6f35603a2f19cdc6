"""Reading the recorded provider traffic in fixtures/recorded-llm, independently of the adapters.

Each cassette holds interactions (request + response). The request URL's path
decides what an interaction is: ``.../chat/completions`` goes to the OpenAI
adapter, ``.../v1/messages`` to the Anthropic one; anything else (token
counting, the OpenAI Responses API, Gemini, file downloads) is not a chat
call of ours and is left out. The expected outcome of each response is
computed here directly from the recorded JSON or SSE text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import yaml

from docuchat.models.base import (
    AssistantMessage,
    Message,
    ModelRequest,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
)

FIXTURES = Path(__file__).parent / "fixtures" / "recorded-llm"
CASSETTES = sorted(FIXTURES.glob("*/*.yaml"))

Provider = Literal["openai", "anthropic"]


@dataclass(frozen=True)
class Exchange:
    """One recorded chat call."""

    cassette: str
    index: int
    provider: Provider
    uri: str
    request_body: dict[str, Any]
    status: int
    content_type: str
    response_body: bytes

    @property
    def streaming(self) -> bool:
        return bool(self.request_body.get("stream"))

    @property
    def model(self) -> str:
        return str(self.request_body.get("model", ""))

    @property
    def host(self) -> str:
        return urlsplit(self.uri).hostname or ""

    def response_json(self) -> Any:
        try:
            return json.loads(self.response_body)
        except ValueError:
            return None


def provider_of(uri: str) -> Provider | None:
    path = urlsplit(uri).path
    if path.endswith("/chat/completions"):
        return "openai"
    if path.endswith("/v1/messages"):
        return "anthropic"
    return None


@cache
def chat_exchanges(cassette: Path) -> tuple[Exchange, ...]:
    with cassette.open("rb") as handle:
        recording = yaml.load(handle, Loader=yaml.CSafeLoader)
    exchanges = []
    for index, interaction in enumerate(recording["interactions"]):
        request, response = interaction["request"], interaction["response"]
        provider = provider_of(request["uri"])
        if provider is None:
            continue
        if "parsed_body" in response:
            body = json.dumps(response["parsed_body"]).encode()
            content_type = "application/json"
        else:
            raw = response["body"]["string"]
            body = raw.encode() if isinstance(raw, str) else raw
            content_type = response["headers"]["content-type"][0]
        exchanges.append(
            Exchange(
                cassette=f"{cassette.parent.name}/{cassette.name}",
                index=index,
                provider=provider,
                uri=request["uri"],
                request_body=request.get("parsed_body") or request["body"],
                status=response["status"]["code"],
                content_type=content_type,
                response_body=body,
            )
        )
    return tuple(exchanges)


def all_exchanges() -> list[Exchange]:
    return [exchange for cassette in CASSETTES for exchange in chat_exchanges(cassette)]


# --- expected outcomes, straight from the recording ---------------------------------------------


@dataclass(frozen=True)
class Expected:
    text: str = ""
    # (id, name, arguments); an empty id means the server sent none.
    tool_calls: tuple[tuple[str, str, Any], ...] = ()
    usage: tuple[int, int] | None = None
    error_status: int | None = None
    error_message: str | None = None
    context_overflow: bool = False
    unparseable: bool = False


def expected(exchange: Exchange) -> Expected:
    body = exchange.response_json()
    if exchange.status >= 400:
        error = body["error"]
        overflow = {error.get("code"), error.get("type")} & _OVERFLOW_CODES
        return Expected(
            error_status=exchange.status,
            error_message=error["message"],
            context_overflow=bool(overflow),
        )
    if exchange.streaming:
        text = exchange.response_body.decode()
        if exchange.provider == "openai":
            return _expected_openai_stream(text)
        return _expected_anthropic_stream(text)
    key = "choices" if exchange.provider == "openai" else "content"
    if not isinstance(body, dict) or key not in body:
        return Expected(unparseable=True)
    if exchange.provider == "openai":
        return _expected_openai(body)
    return _expected_anthropic(body)


_OVERFLOW_CODES = {"context_length_exceeded", "exceed_context_size_error"}


def closes_before_any_chunk(exchange: Exchange) -> bool:
    """A streamed answer without a single event (llama-cpp-python's way to fail a stream)."""
    return (
        exchange.streaming
        and exchange.status < 400
        and not _data_lines(exchange.response_body.decode())
    )


@dataclass(frozen=True)
class NotJSON:
    """Tool-call arguments that are not JSON (a small model's): kept raw, parsed as {}."""

    text: str


def _arguments(text: str | None) -> Any:
    if not text:
        return {}
    try:
        return json.loads(text)
    except ValueError:
        return NotJSON(text)


def _expected_openai(body: dict[str, Any]) -> Expected:
    message = body["choices"][0]["message"]
    content = message.get("content") or ""
    if isinstance(content, list):
        content = "".join(part["text"] for part in content if part["type"] == "text")
    calls = tuple(
        (call["id"], call["function"]["name"], _arguments(call["function"].get("arguments")))
        for call in message.get("tool_calls") or []
    )
    usage = body.get("usage")
    return Expected(
        text=content,
        tool_calls=calls,
        usage=(usage["prompt_tokens"], usage["completion_tokens"]) if usage else None,
    )


def _data_lines(sse: str) -> list[Any]:
    return [
        json.loads(line[len("data:") :])
        for line in sse.splitlines()
        if line.startswith("data:") and line[len("data:") :].strip() != "[DONE]"
    ]


def _expected_openai_stream(sse: str) -> Expected:
    text, usage = "", None
    calls: dict[int, list[str]] = {}
    for chunk in _data_lines(sse):
        if chunk.get("usage"):
            usage = (chunk["usage"]["prompt_tokens"], chunk["usage"]["completion_tokens"])
        for choice in chunk["choices"]:
            text += choice["delta"].get("content") or ""
            for fragment in choice["delta"].get("tool_calls") or []:
                call = calls.setdefault(fragment["index"], ["", "", ""])
                call[0] = call[0] or fragment.get("id") or ""
                call[1] = call[1] or fragment["function"].get("name") or ""
                call[2] += fragment["function"].get("arguments") or ""
    return Expected(
        text=text,
        tool_calls=tuple((i, n, _arguments(a)) for i, n, a in calls.values()),
        usage=usage,
    )


def _anthropic_usage(usage: dict[str, Any]) -> tuple[int, int]:
    prompt = (
        usage["input_tokens"]
        + (usage.get("cache_creation_input_tokens") or 0)
        + (usage.get("cache_read_input_tokens") or 0)
    )
    return prompt, usage["output_tokens"]


def _expected_anthropic(body: dict[str, Any]) -> Expected:
    blocks = body["content"]
    return Expected(
        text="".join(block["text"] for block in blocks if block["type"] == "text"),
        tool_calls=tuple(
            (block["id"], block["name"], block["input"])
            for block in blocks
            if block["type"] == "tool_use"
        ),
        usage=_anthropic_usage(body["usage"]),
    )


def _expected_anthropic_stream(sse: str) -> Expected:
    text, usage = "", {}
    tool_blocks: dict[int, list[str]] = {}
    for event in _data_lines(sse):
        if event["type"] == "message_start":
            usage = event["message"]["usage"]
        elif event["type"] == "message_delta":
            usage = {**usage, **{k: v for k, v in event["usage"].items() if v is not None}}
        elif event["type"] == "content_block_start":
            block = event["content_block"]
            if block["type"] == "tool_use":
                tool_blocks[event["index"]] = [block["id"], block["name"], ""]
        elif event["type"] == "content_block_delta":
            delta = event["delta"]
            if delta["type"] == "text_delta":
                text += delta["text"]
            elif delta["type"] == "input_json_delta" and event["index"] in tool_blocks:
                tool_blocks[event["index"]][2] += delta["partial_json"]
    return Expected(
        text=text,
        tool_calls=tuple((i, n, _arguments(a)) for i, n, a in tool_blocks.values()),
        usage=_anthropic_usage(usage),
    )


# --- recorded request bodies as provider-neutral requests ---------------------------------------


def _text(content: Any) -> str:
    """Text of a str or a list of typed parts; images, audio and documents have none."""
    if isinstance(content, str):
        return content
    return "\n".join(part["text"] for part in content or [] if part.get("type") == "text")


def model_request(exchange: Exchange) -> ModelRequest:
    if exchange.provider == "openai":
        return _openai_request(exchange.request_body)
    return _anthropic_request(exchange.request_body)


def _openai_request(body: dict[str, Any]) -> ModelRequest:
    system: list[str] = []
    messages: list[Message] = []
    results: list[ToolResult] = []
    names: dict[str, str] = {}
    for message in body["messages"]:
        role, text = message["role"], _text(message.get("content"))
        if role != "tool" and results:
            messages.append(ToolResultsMessage(tuple(results)))
            results = []
        if role in ("system", "developer"):
            system.append(text)
        elif role == "user":
            messages.append(UserMessage(text))
        elif role == "assistant":
            calls = []
            for call in message.get("tool_calls") or []:
                function = call["function"]
                names[call["id"]] = function["name"]
                calls.append(
                    ToolCall(call["id"], function["name"], _arguments(function.get("arguments")))
                )
            messages.append(AssistantMessage(text, tuple(calls)))
        elif role == "tool":
            call_id = message.get("tool_call_id", "")
            results.append(ToolResult(call_id, names.get(call_id, ""), text))
    if results:
        messages.append(ToolResultsMessage(tuple(results)))
    tools = [
        ToolSpec(
            tool["function"]["name"],
            tool["function"].get("description", ""),
            tool["function"].get("parameters", {}),
        )
        for tool in body.get("tools") or []
        if tool.get("type") == "function"
    ]
    return ModelRequest(
        system="\n\n".join(system),
        messages=messages,
        tools=tools,
        tool_choice="none" if body.get("tool_choice") == "none" else "auto",
        max_output_tokens=body.get("max_tokens") or body.get("max_completion_tokens"),
    )


def _anthropic_request(body: dict[str, Any]) -> ModelRequest:
    system = [_text(body.get("system"))] if body.get("system") else []
    messages: list[Message] = []
    names: dict[str, str] = {}
    for message in body["messages"]:
        content = message["content"]
        blocks: list[dict[str, Any]] = (
            [{"type": "text", "text": content}] if isinstance(content, str) else content
        )
        text = _text(blocks)
        if message["role"] == "system":
            system.append(text)
        elif message["role"] == "assistant":
            calls = [
                ToolCall(block["id"], block["name"], block["input"])
                for block in blocks
                if block["type"] == "tool_use"
            ]
            names.update((call.id, call.name) for call in calls)
            if text or calls:
                messages.append(AssistantMessage(text, tuple(calls)))
        else:
            results = tuple(
                ToolResult(
                    block["tool_use_id"],
                    names.get(block["tool_use_id"], ""),
                    _text(block.get("content")),
                    bool(block.get("is_error")),
                )
                for block in blocks
                if block["type"] == "tool_result"
            )
            if results:
                messages.append(ToolResultsMessage(results))
            if text:
                messages.append(UserMessage(text))
    tools = [
        ToolSpec(tool["name"], tool.get("description", ""), tool["input_schema"])
        for tool in body.get("tools") or []
        if "input_schema" in tool
    ]
    choice = body.get("tool_choice") or {}
    return ModelRequest(
        system="\n\n".join(system),
        messages=messages,
        tools=tools,
        tool_choice="none" if choice.get("type") == "none" else "auto",
        max_output_tokens=body.get("max_tokens"),
    )
