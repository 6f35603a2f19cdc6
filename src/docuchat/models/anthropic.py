"""Anthropic Messages (``POST {base_url}/v1/messages``), streamed or not.

Only ``tool_use`` blocks become tool calls. Server-side tools (web search, code
execution...) run at Anthropic: their ``server_tool_use`` blocks are listed in
``extra["server_tool_calls"]`` and their results are not for the loop.
Thinking text is kept in ``extra["reasoning"]``; redacted thinking is dropped.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from docuchat.errors import ModelResponseError
from docuchat.models.base import (
    AssistantMessage,
    ModelRequest,
    ModelResponse,
    StreamItem,
    TextChunk,
    TokenUsage,
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
    UseTool,
)
from docuchat.models.http import (
    DEFAULT_RETRY,
    DEFAULT_TIMEOUT,
    HTTPPool,
    ProviderClient,
    RetryPolicy,
    decode_event,
    env_credentials,
    error_message,
    make_tool_call,
    require_key,
    response_shape,
)
from docuchat.models.tokens import TokenEstimator
from docuchat.models.window import UNKNOWN_WINDOW, ContextWindow, hosted_window

DEFAULT_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096
_ANTHROPIC_HOST = "api.anthropic.com"

# Anthropic's stop reasons in the vocabulary the loop sees from every adapter.
_FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
}


class AnthropicModel:
    """A Claude model behind the Anthropic Messages API (or a compatible proxy).

    ``token_estimator`` estimates request sizes; the agent loop calls its
    ``observe`` with each response's ``usage.input_tokens``.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str = DEFAULT_BASE_URL,
        http_client: HTTPPool | None = None,
        retry: RetryPolicy = DEFAULT_RETRY,
        timeout: aiohttp.ClientTimeout | float = DEFAULT_TIMEOUT,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> None:
        require_key(api_key, base_url, _ANTHROPIC_HOST, "ANTHROPIC")
        self.model = model
        self.name = f"anthropic:{model}"
        self.max_tokens = max_tokens
        self.token_estimator = TokenEstimator()
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        self._client = ProviderClient(
            base_url, headers, http_client=http_client, retry=retry, timeout=timeout
        )

    @classmethod
    def from_env(cls, model: str, *, http_client: HTTPPool | None = None) -> AnthropicModel:
        """Configured by ``ANTHROPIC_API_KEY`` and ``ANTHROPIC_BASE_URL``."""
        api_key, base_url = env_credentials("ANTHROPIC", DEFAULT_BASE_URL)
        return cls(model, api_key=api_key, base_url=base_url, http_client=http_client)

    async def context_window(self) -> ContextWindow:
        return hosted_window(urlsplit(self._client.base_url).hostname) or UNKNOWN_WINDOW

    async def complete(self, request: ModelRequest) -> ModelResponse:
        body = await self._client.post_json("/v1/messages", self.request_body(request))
        with response_shape("message"):
            return _parse_message(body)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        assembler = _StreamAssembler()
        payload = self.request_body(request, stream=True)
        async with self._client.stream_events("/v1/messages", payload) as events:
            async for event in events:
                with response_shape("stream event"):
                    text = assembler.feed(decode_event(event))
                if text:
                    yield TextChunk(text)
        yield assembler.response()

    def request_body(self, request: ModelRequest, *, stream: bool = False) -> dict[str, Any]:
        """The exact JSON sent for ``request``."""
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_output_tokens or self.max_tokens,
            "messages": _messages(request),
        }
        if request.system:
            body["system"] = request.system
        body.update(_tools(request))
        if stream:
            body["stream"] = True
        return body


def _messages(request: ModelRequest) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = []
    for message in request.messages:
        if isinstance(message, UserMessage):
            if wire and wire[-1]["role"] == "user":
                # e.g. a runtime prompt right after tool results: one user turn, results first
                wire[-1]["content"] = [
                    *_blocks(wire[-1]["content"]),
                    {"type": "text", "text": message.content},
                ]
            else:
                wire.append({"role": "user", "content": message.content})
        elif isinstance(message, AssistantMessage):
            blocks: list[dict[str, Any]] = (
                [{"type": "text", "text": message.text}] if message.text else []
            )
            blocks.extend(
                {"type": "tool_use", "id": c.id, "name": c.name, "input": dict(c.arguments)}
                for c in message.tool_calls
            )
            if blocks:  # Anthropic rejects an assistant turn without content
                wire.append({"role": "assistant", "content": blocks})
        elif isinstance(message, ToolResultsMessage):
            results = [
                {
                    "type": "tool_result",
                    "tool_use_id": result.call_id,
                    "content": result.content,
                    "is_error": result.is_error,
                }
                for result in message.results
            ]
            wire.append({"role": "user", "content": results})
    return wire


def _blocks(content: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def _tools(request: ModelRequest) -> dict[str, Any]:
    if request.tool_choice != "none":
        if not request.tools:
            return {}
        tools: dict[str, Any] = {"tools": [_tool(spec) for spec in request.tools]}
        if isinstance(request.tool_choice, UseTool):
            tools["tool_choice"] = {"type": "tool", "name": request.tool_choice.name}
        return tools
    used = [
        call.name
        for message in request.messages
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls
    ]
    if not used:
        return {}
    # A request whose history holds tool_use blocks must define those tools, so they are
    # declared and forbidden rather than left out.
    declared = {spec.name for spec in request.tools}
    stubs = [
        ToolSpec(name, "Not available now.", {"type": "object"})
        for name in dict.fromkeys(used)
        if name not in declared
    ]
    return {
        "tools": [_tool(spec) for spec in [*request.tools, *stubs]],
        "tool_choice": {"type": "none"},
    }


def _tool(spec: ToolSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "description": spec.description,
        "input_schema": dict(spec.parameters),
    }


def _parse_message(body: Any) -> ModelResponse:
    if not isinstance(body, dict) or not isinstance(body.get("content"), list):
        detail = error_message(body) if isinstance(body, dict) else None
        raise ModelResponseError(
            f"provider error: {detail}" if detail else f"no content in response: {str(body)[:200]}"
        )
    return _response(body["content"], body.get("stop_reason"), body.get("usage"), body.get("model"))


def _response(
    blocks: Sequence[Mapping[str, Any]], stop_reason: Any, usage: Any, model: Any
) -> ModelResponse:
    tool_calls = tuple(
        make_tool_call(
            block["id"], block["name"], block.get("input_json") or json.dumps(block.get("input"))
        )
        for block in blocks
        if block["type"] == "tool_use"
    )
    extra: dict[str, Any] = {}
    reasoning = "".join(block["thinking"] for block in blocks if block["type"] == "thinking")
    if reasoning:
        extra["reasoning"] = reasoning
    server_calls = [block["name"] for block in blocks if block["type"] == "server_tool_use"]
    if server_calls:
        extra["server_tool_calls"] = server_calls
    return ModelResponse(
        text="".join(block["text"] for block in blocks if block["type"] == "text"),
        tool_calls=tool_calls,
        usage=_usage(usage),
        finish_reason=_FINISH_REASONS.get(stop_reason, stop_reason),
        model=model,
        extra=extra,
    )


def _usage(usage: Any) -> TokenUsage | None:
    if not isinstance(usage, dict):
        return None
    # Cached prompt tokens are billed and counted apart from input_tokens; the prompt is all three.
    prompt = sum(
        int(usage.get(key) or 0)
        for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    return TokenUsage(input_tokens=prompt, output_tokens=int(usage.get("output_tokens") or 0))


class _StreamAssembler:
    """Rebuilds the message's content blocks from stream events."""

    def __init__(self) -> None:
        self._blocks: dict[int, dict[str, Any]] = {}
        self._usage: dict[str, Any] | None = None
        self._stop_reason: str | None = None
        self._model: str | None = None

    def feed(self, event: Any) -> str:
        """Takes one event; returns its answer text (possibly empty)."""
        if not isinstance(event, dict):
            raise ModelResponseError(f"stream event is not an object: {str(event)[:200]}")
        kind = event.get("type")
        if kind == "error":
            raise ModelResponseError(f"provider error in stream: {error_message(event)}")
        if kind == "message_start":
            self._model = event["message"].get("model")
            self._usage = dict(event["message"].get("usage") or {})
        elif kind == "content_block_start":
            self._blocks[event["index"]] = dict(event["content_block"])
        elif kind == "content_block_delta":
            return self._apply_delta(self._blocks[event["index"]], event["delta"])
        elif kind == "message_delta":
            self._stop_reason = event["delta"].get("stop_reason") or self._stop_reason
            # message_delta usage is cumulative: it supersedes what message_start said.
            final = {k: v for k, v in (event.get("usage") or {}).items() if v is not None}
            self._usage = {**(self._usage or {}), **final}
        return ""

    @staticmethod
    def _apply_delta(block: dict[str, Any], delta: Mapping[str, Any]) -> str:
        kind = delta["type"]
        if kind == "text_delta":
            block["text"] = block.get("text", "") + delta["text"]
            return str(delta["text"])
        if kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + delta["thinking"]
        elif kind == "input_json_delta":
            block["input_json"] = block.get("input_json", "") + delta["partial_json"]
        return ""

    def response(self) -> ModelResponse:
        if self._usage is None:
            raise ModelResponseError("stream ended before message_start")
        blocks = [self._blocks[index] for index in sorted(self._blocks)]
        return _response(blocks, self._stop_reason, self._usage, self._model)


__all__ = ["ANTHROPIC_VERSION", "DEFAULT_BASE_URL", "AnthropicModel"]
