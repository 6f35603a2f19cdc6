"""Every recorded chat response, replayed over a local HTTP server to the matching adapter.

Streaming recordings go through ``stream()``, the others through
``complete()``. Text, tool calls (id, name, arguments) and usage must match
what the recording says; recorded errors must raise a typed error carrying
the server's message.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from docuchat.errors import ContextOverflow, ModelHTTPError, ModelResponseError
from docuchat.models.anthropic import AnthropicModel
from docuchat.models.base import Model, ModelResponse, TextChunk
from docuchat.models.http import RetryPolicy
from docuchat.models.openai import OpenAIChatModel

from .conftest import Reply, ScriptedServer
from .recorded import (
    CASSETTES,
    Exchange,
    Expected,
    NotJSON,
    chat_exchanges,
    closes_before_any_chunk,
    expected,
    model_request,
)

NO_RETRY = RetryPolicy(max_retries=0)


def test_every_cassette_is_replayed() -> None:
    assert (
        len(CASSETTES) == 187
    )  # 169 from hosted APIs, 9 each from llama-cpp-python and llama-server
    assert all(chat_exchanges(cassette) for cassette in CASSETTES)


def _adapter(exchange: Exchange, server: ScriptedServer) -> Model:
    if exchange.provider == "openai":
        return OpenAIChatModel(
            exchange.model, api_key="sk-test", base_url=f"{server.url}/v1", retry=NO_RETRY
        )
    return AnthropicModel(
        exchange.model, api_key="sk-ant-test", base_url=server.url, retry=NO_RETRY
    )


def _reply(exchange: Exchange) -> Reply:
    headers = {"content-type": exchange.content_type}
    if exchange.streaming:
        # Split mid-line so that the adapter has to reassemble lines across network reads.
        body = exchange.response_body
        pieces = tuple(body[i : i + 700] for i in range(0, len(body), 700))
        return Reply(status=exchange.status, headers=headers, chunks=pieces)
    return Reply(status=exchange.status, headers=headers, body=exchange.response_body)


async def _run(model: Model, exchange: Exchange) -> ModelResponse:
    request = model_request(exchange)
    if not exchange.streaming:
        return await model.complete(request)
    items = [item async for item in model.stream(request)]
    *deltas, response = items
    assert isinstance(response, ModelResponse)
    assert all(isinstance(delta, TextChunk) and delta.text for delta in deltas)
    assert "".join(delta.text for delta in deltas if isinstance(delta, TextChunk)) == response.text
    return response


def _check_sent(exchange: Exchange, server: ScriptedServer) -> None:
    sent = server.requests[-1]
    body = sent.json()
    assert body["model"] == exchange.model
    assert bool(body.get("stream")) == exchange.streaming
    if exchange.provider == "openai":
        assert sent.path == "/v1/chat/completions"
        assert sent.headers["authorization"] == "Bearer sk-test"
        if exchange.streaming:
            assert body["stream_options"] == {"include_usage": True}
    else:
        assert sent.path == "/v1/messages"
        assert sent.headers["x-api-key"] == "sk-ant-test"
        assert sent.headers["anthropic-version"] == "2023-06-01"


def _check_response(response: ModelResponse, want: Expected) -> None:
    assert response.text == want.text
    assert len(response.tool_calls) == len(want.tool_calls)
    for call, (call_id, name, arguments) in zip(response.tool_calls, want.tool_calls, strict=True):
        assert call.id == call_id if call_id else call.id  # generated when the server sent none
        assert call.name == name
        if isinstance(arguments, NotJSON):
            assert (call.arguments, call.raw_arguments) == ({}, arguments.text)
        else:
            assert call.arguments == arguments
            assert call.raw_arguments is None
    if want.usage is None:
        assert response.usage is None
    else:
        assert response.usage is not None
        assert (response.usage.input_tokens, response.usage.output_tokens) == want.usage


@pytest.mark.parametrize("cassette", CASSETTES, ids=lambda path: f"{path.parent.name}/{path.stem}")
async def test_replay(cassette: Path, server: ScriptedServer) -> None:
    exchanges = iter(chat_exchanges(cassette))
    for exchange in exchanges:
        server.queue(_reply(exchange))
        answered_by = exchange
        if closes_before_any_chunk(exchange):
            # The adapter asks again whole: the next recorded exchange is that request.
            answered_by = next(exchanges)
            assert not answered_by.streaming
            server.queue(_reply(answered_by))
        want = expected(answered_by)
        model = _adapter(exchange, server)
        if want.error_status is not None:
            with pytest.raises(ModelHTTPError) as raised:
                await _run(model, exchange)
            assert raised.value.status == want.error_status
            assert want.error_message is not None
            assert want.error_message in raised.value.message
            assert isinstance(raised.value, ContextOverflow) == want.context_overflow
        elif want.unparseable:
            with pytest.raises(ModelResponseError):
                await _run(model, exchange)
        else:
            _check_response(await _run(model, exchange), want)
        _check_sent(answered_by, server)
