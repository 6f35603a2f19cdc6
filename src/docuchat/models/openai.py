"""OpenAI-compatible chat completions: OpenAI, Groq, Mistral, DeepSeek, OpenRouter, vLLM, Ollama...

One adapter serves every server that speaks ``POST {base_url}/chat/completions``.
Vendor differences seen in recorded traffic and handled here: tool calls
without ids (an id is generated) or with ids already used earlier in the
conversation (a new one is generated), empty-string ``finish_reason``
(inferred), reasoning in ``reasoning_content`` or ``reasoning`` (kept in
``extra["reasoning"]``), content as a list of typed parts, streamed usage on
the last chunk with choices or on a separate chunk without any.

What local servers need (llama.cpp, llama-cpp-python, Ollama, vLLM, LM Studio):
an assistant message's ``content`` is always a string, "" beside tool calls
(llama-cpp-python answers ``null`` with HTTP 500); ``tool_choice`` is sent
whenever tools are (llama-cpp-python's ``chatml-function-calling`` offers no
tool without it); a stream that ends before its first chunk (llama-cpp-python
cannot stream a tool call it chose itself) is asked again without streaming;
tool results go as a user message to a server whose template drops ``tool``
messages, and a forced tool as ``"required"`` with that tool alone to llama-server,
which reads no named ``tool_choice`` (see :meth:`OpenAIChatModel.server_info`). A
request too long for the window is a typed :class:`~docuchat.errors.ContextOverflow`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from docuchat.errors import ModelResponseError
from docuchat.models import wire_json
from docuchat.models.base import (
    AssistantMessage,
    ModelRequest,
    ModelResponse,
    StreamItem,
    TextChunk,
    TokenUsage,
    ToolCall,
    ToolChoice,
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
    new_call_id,
    require_key,
    response_shape,
)
from docuchat.models.servers import ServerInfo, probe_server
from docuchat.models.text_protocol import results_text
from docuchat.models.tokens import TokenEstimator
from docuchat.models.window import UNKNOWN_WINDOW, ContextWindow, hosted_window

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_OPENAI_HOST = "api.openai.com"


class OpenAIChatModel:
    """A chat model behind any OpenAI-compatible server.

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
    ) -> None:
        require_key(api_key, base_url, _OPENAI_HOST, "OPENAI")
        self.host = urlsplit(base_url).hostname
        self.model = model
        self.name = f"openai:{model}"
        self.token_estimator = TokenEstimator()
        # OpenAI's reasoning models reject max_tokens; many compatible servers only know it.
        self._max_tokens_field = (
            "max_completion_tokens" if self.host == _OPENAI_HOST else "max_tokens"
        )
        self._headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = ProviderClient(
            base_url, self._headers, http_client=http_client, retry=retry, timeout=timeout
        )
        self._server: ServerInfo | None = None
        self._probed = False
        self._probe: asyncio.Task[None] | None = None

    @classmethod
    def from_env(cls, model: str, *, http_client: HTTPPool | None = None) -> OpenAIChatModel:
        """Configured by ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL``."""
        api_key, base_url = env_credentials("OPENAI", DEFAULT_BASE_URL)
        return cls(model, api_key=api_key, base_url=base_url, http_client=http_client)

    async def server_info(self) -> ServerInfo | None:
        """What the server is and says about the model, asked once (never for hosted APIs).

        Until it is asked, requests are built as for OpenAI itself. Questions arriving
        together share one probe: each probing on its own multiplied the requests a cold
        server got by the number of questions. The probe is a task of the running loop,
        shielded so that a question cancelled while waiting does not cancel it for the
        others; a probe of another loop (an earlier test's) or one that failed is asked again.
        """
        if self._probed or hosted_window(self.host) is not None:
            return self._server
        loop = asyncio.get_running_loop()
        if self._probe is None or self._probe.done() or self._probe.get_loop() is not loop:
            self._probe = loop.create_task(self._ask_server())
        await asyncio.shield(self._probe)
        return self._server

    @property
    def known_server(self) -> ServerInfo | None:
        """What the probe found, without asking; None before it answered."""
        return self._server

    async def _ask_server(self) -> None:
        async with self._client.session() as session:
            self._server = await probe_server(
                session, self._client.base_url, self.model, self._headers
            )
        self._probed = True

    async def context_window(self) -> ContextWindow:
        hosted = hosted_window(self.host)
        if hosted is not None:
            return hosted
        server = await self.server_info()
        if server is not None and server.context_window:
            return ContextWindow(server.context_window, server.window_source)
        return UNKNOWN_WINDOW

    async def complete(self, request: ModelRequest) -> ModelResponse:
        body = await self._client.post_json("/chat/completions", self.request_body(request))
        with response_shape("chat completion"):
            return _unique_call_ids(_parse_completion(body), request)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        assembler = _StreamAssembler()
        payload = self.request_body(request, stream=True)
        async with self._client.stream_events("/chat/completions", payload) as events:
            async for event in events:
                if event.data.strip() == "[DONE]":
                    break
                with response_shape("chat completion chunk"):
                    text = assembler.feed(decode_event(event))
                if text:
                    yield TextChunk(text)
        if assembler.is_empty:
            # Nothing reached the caller yet, so asking again whole is safe; the answer
            # (or the error the server hid from the stream) comes back that way.
            whole = await self.complete(request)
            if whole.text:
                yield TextChunk(whole.text)
            yield whole
            return
        yield _unique_call_ids(assembler.response(), request)

    def request_body(self, request: ModelRequest, *, stream: bool = False) -> dict[str, Any]:
        """The exact JSON sent for ``request``."""
        results_as_text = self._server is not None and not self._server.renders_tool_results
        body: dict[str, Any] = {
            "model": self.model,
            "messages": _messages(request, results_as_text=results_as_text),
        }
        if request.tools and request.tool_choice != "none":
            tools, choice = request.tools, _tool_choice(request.tool_choice)
            forced = request.tool_choice
            if isinstance(forced, UseTool) and self._server and not self._server.names_forced_tools:
                # The same constraint in the words the server reads: that one tool, required.
                tools, choice = [spec for spec in tools if spec.name == forced.name], "required"
            body["tools"] = [_tool(spec) for spec in tools]
            body["tool_choice"] = choice
        if request.max_output_tokens is not None:
            body[self._max_tokens_field] = request.max_output_tokens
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return body


def _messages(request: ModelRequest, *, results_as_text: bool) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = []
    if request.system:
        wire.append({"role": "system", "content": request.system})
    for message in request.messages:
        if isinstance(message, UserMessage):
            wire.append({"role": "user", "content": message.content})
        elif isinstance(message, AssistantMessage):
            wire.append(_assistant_message(message))
        elif results_as_text:
            wire.append({"role": "user", "content": results_text(message)})
        else:
            wire.extend(
                {"role": "tool", "tool_call_id": result.call_id, "content": result.content}
                for result in message.results
            )
    return wire


def _assistant_message(message: AssistantMessage) -> dict[str, Any]:
    if not message.tool_calls:
        return {"role": "assistant", "content": message.text}
    return {
        "role": "assistant",
        "content": message.text,  # a string even when empty: null breaks some servers
        "tool_calls": [_wire_tool_call(call) for call in message.tool_calls],
    }


def _tool_choice(choice: ToolChoice) -> str | dict[str, Any]:
    if isinstance(choice, UseTool):
        return {"type": "function", "function": {"name": choice.name}}
    return choice


def _unique_call_ids(response: ModelResponse, request: ModelRequest) -> ModelResponse:
    """``response`` with a new id for each call whose id the conversation already used.

    Some servers number calls per response ("call_0"), or repeat one id for every
    call: the results could then not be told apart.
    """
    taken = {
        call.id
        for message in request.messages
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls
    }
    calls = []
    for call in response.tool_calls:
        if call.id in taken:
            call = dataclasses.replace(call, id=new_call_id())
        taken.add(call.id)
        calls.append(call)
    if calls == list(response.tool_calls):
        return response
    return dataclasses.replace(response, tool_calls=tuple(calls))


def _wire_tool_call(call: ToolCall) -> dict[str, Any]:
    # Unparseable arguments go back as "{}": the tool result already told the model what was wrong.
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": wire_json.dumps(dict(call.arguments))},
    }


def _tool(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": dict(spec.parameters),
        },
    }


def _parse_completion(body: Any) -> ModelResponse:
    choices = body.get("choices") if isinstance(body, dict) else None
    if not choices:
        detail = error_message(body) if isinstance(body, dict) else None
        raise ModelResponseError(
            f"provider error: {detail}" if detail else f"no choices in response: {str(body)[:200]}"
        )
    message = choices[0].get("message") or {}
    tool_calls = tuple(
        make_tool_call(call.get("id"), call["function"]["name"], call["function"].get("arguments"))
        for call in message.get("tool_calls") or ()
    )
    return _response(
        text=_content_text(message.get("content")),
        reasoning=_reasoning_text(message),
        tool_calls=tool_calls,
        finish_reason=choices[0].get("finish_reason"),
        usage=_usage(body.get("usage")),
        model=body.get("model"),
    )


def _response(
    *,
    text: str,
    reasoning: str,
    tool_calls: tuple[ToolCall, ...],
    finish_reason: str | None,
    usage: TokenUsage | None,
    model: str | None,
) -> ModelResponse:
    return ModelResponse(
        text=text,
        tool_calls=tool_calls,
        usage=usage,
        # Some vendors send "" (or nothing) as finish_reason.
        finish_reason=finish_reason or ("tool_calls" if tool_calls else "stop"),
        model=model,
        extra={"reasoning": reasoning} if reasoning else {},
    )


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # typed parts; thinking parts are not answer text
        return "".join(
            str(part.get("text") or "")
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def _reasoning_text(message: Mapping[str, Any]) -> str:
    for key in ("reasoning_content", "reasoning"):
        value = message.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _usage(usage: Any) -> TokenUsage | None:
    if not isinstance(usage, dict):
        return None
    return TokenUsage(
        input_tokens=int(usage.get("prompt_tokens") or 0),
        output_tokens=int(usage.get("completion_tokens") or 0),
    )


@dataclass
class _PartialToolCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)

    def ends_before(self, call_id: str, name: str) -> bool:
        """Whether a fragment at this call's index (or without one) starts another call.

        Some vendors send every call whole at index 0, or with no index, or
        without ids: a different id, or a name once this call's arguments are
        complete JSON, means a new call.
        """
        if call_id and self.id:
            return call_id != self.id
        if not name:
            return False
        try:
            json.loads("".join(self.arguments))
        except ValueError:
            return False
        return True


class _StreamAssembler:
    """Accumulates chat completion chunks into one response."""

    def __init__(self) -> None:
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls: list[_PartialToolCall] = []
        self._calls_by_index: dict[int, _PartialToolCall] = {}
        self._finish_reason: str | None = None
        self._usage: TokenUsage | None = None
        self._model: str | None = None
        self._chunks = 0

    def feed(self, chunk: Any) -> str:
        """Takes one chunk; returns its answer text (possibly empty)."""
        if not isinstance(chunk, dict):
            raise ModelResponseError(f"stream chunk is not an object: {str(chunk)[:200]}")
        detail = error_message(chunk)
        if detail is not None:
            raise ModelResponseError(f"provider error in stream: {detail}")
        self._chunks += 1
        self._model = chunk.get("model") or self._model
        self._usage = _usage(chunk.get("usage")) or self._usage
        choices = chunk.get("choices")
        if not choices:
            return ""
        choice = choices[0]
        self._finish_reason = choice.get("finish_reason") or self._finish_reason
        delta = choice.get("delta") or {}
        for fragment in delta.get("tool_calls") or ():
            self._add_fragment(fragment)
        self._reasoning.append(_reasoning_text(delta))
        text = _content_text(delta.get("content"))
        self._text.append(text)
        return text

    def _add_fragment(self, fragment: Mapping[str, Any]) -> None:
        function = fragment.get("function") or {}
        name, call_id = function.get("name") or "", fragment.get("id") or ""
        index = fragment.get("index")
        call = self._calls_by_index.get(index) if index is not None else self._last_call()
        if call is None or call.ends_before(call_id, name):
            call = _PartialToolCall()
            self._calls.append(call)
            if index is not None:
                self._calls_by_index[index] = call
        call.id = call.id or call_id
        if name and name != call.name:
            call.name += name
        call.arguments.append(function.get("arguments") or "")

    def _last_call(self) -> _PartialToolCall | None:
        return self._calls[-1] if self._calls else None

    @property
    def is_empty(self) -> bool:
        return not self._chunks

    def response(self) -> ModelResponse:
        return _response(
            text="".join(self._text),
            reasoning="".join(self._reasoning),
            tool_calls=tuple(
                make_tool_call(call.id, call.name, "".join(call.arguments)) for call in self._calls
            ),
            finish_reason=self._finish_reason,
            usage=self._usage,
            model=self._model,
        )


__all__ = ["DEFAULT_BASE_URL", "OpenAIChatModel"]
