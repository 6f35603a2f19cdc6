"""Response assembly edge cases not covered by the recordings: fragments, vendor quirks, errors."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from docuchat.errors import ModelResponseError
from docuchat.models.anthropic import AnthropicModel
from docuchat.models.base import Model, ModelRequest, ModelResponse, StreamItem, UserMessage
from docuchat.models.openai import OpenAIChatModel

from .conftest import Reply, ScriptedServer, completion

REQUEST = ModelRequest(system="", messages=[UserMessage("Go")])


async def _streamed(model: Model, events: list[dict[str, Any]], server: ScriptedServer) -> Any:
    server.queue(Reply.sse([f"data: {json.dumps(event)}" for event in events]))
    items = [item async for item in model.stream(REQUEST)]
    assert isinstance(items[-1], ModelResponse)
    return items


def _chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}


def _fragment(index: int | None, **fields: Any) -> dict[str, Any]:
    function = {k: fields.pop(k) for k in ("name", "arguments") if k in fields}
    fragment = {"function": function, **fields}
    return fragment if index is None else {"index": index, **fragment}


async def test_openai_interleaved_parallel_fragments_are_assembled_by_index(
    server: ScriptedServer, openai_model: OpenAIChatModel
) -> None:
    events = [
        _chunk({"tool_calls": [_fragment(0, id="a", name="search_docs", arguments="")]}),
        _chunk({"tool_calls": [_fragment(1, id="b", name="open_citation", arguments='{"doc')]}),
        _chunk({"tool_calls": [_fragment(0, arguments='{"query": ')]}),
        _chunk({"tool_calls": [_fragment(1, arguments='Id": "d1"}')]}),
        _chunk({"tool_calls": [_fragment(0, arguments='"cats"}')]}),
        _chunk({}, finish_reason=""),  # a vendor's empty finish_reason
        {"choices": [], "usage": {"prompt_tokens": 40, "completion_tokens": 9}},
    ]
    *_, response = await _streamed(openai_model, events, server)
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("a", "search_docs", {"query": "cats"}),
        ("b", "open_citation", {"docId": "d1"}),
    ]
    assert response.finish_reason == "tool_calls"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (40, 9)


async def test_openai_missing_ids_reused_indexes_and_missing_indexes(
    server: ScriptedServer, openai_model: OpenAIChatModel
) -> None:
    events = [
        # No ids at all: generated, and distinct.
        _chunk({"tool_calls": [_fragment(0, name="search_docs", arguments='{"query": "a"}')]}),
        # Index 0 reused for a second call with its own id.
        _chunk({"tool_calls": [_fragment(0, id="x", name="search_docs", arguments="{}")]}),
        _chunk({"tool_calls": [_fragment(0, id="y", name="open_citation", arguments="{}")]}),
        # No index: each whole call starts with its name, continuations have none.
        _chunk({"tool_calls": [_fragment(None, name="search_docs", arguments='{"query":')]}),
        _chunk({"tool_calls": [_fragment(None, arguments=' "z"}')]}),
    ]
    *_, response = await _streamed(openai_model, events, server)
    calls = response.tool_calls
    assert [(c.name, dict(c.arguments)) for c in calls] == [
        ("search_docs", {"query": "a"}),
        ("search_docs", {}),
        ("open_citation", {}),
        ("search_docs", {"query": "z"}),
    ]
    assert [c.id for c in calls[1:3]] == ["x", "y"]
    assert len({c.id for c in calls}) == 4
    assert all(c.id for c in calls)


async def test_openai_reasoning_is_kept_apart_from_the_answer(
    server: ScriptedServer, openai_model: OpenAIChatModel
) -> None:
    events = [
        _chunk({"reasoning_content": "Think "}),
        _chunk({"reasoning_content": "hard.", "content": None}),
        _chunk({"content": "Four."}, finish_reason="stop"),
    ]
    *deltas, response = await _streamed(openai_model, events, server)
    assert [d.text for d in deltas] == ["Four."]
    assert response.text == "Four."
    assert response.extra["reasoning"] == "Think hard."
    assert response.usage is None  # this server reported none


@pytest.mark.parametrize("arguments", ['{"query": "unclosed', "[1, 2]", '"just a string"', "{]"])
async def test_openai_arguments_that_are_not_a_json_object_are_kept_raw(
    server: ScriptedServer, openai_model: OpenAIChatModel, arguments: str
) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
    server.queue(Reply.json(completion(None, tool_calls=[call])))
    response = await openai_model.complete(REQUEST)
    assert response.tool_calls[0].arguments == {}
    assert response.tool_calls[0].raw_arguments == arguments
    assert response.text == ""


async def test_openai_error_inside_a_stream(
    server: ScriptedServer, openai_model: OpenAIChatModel
) -> None:
    events = [_chunk({"content": "Hel"}), {"error": {"message": "upstream died", "code": 502}}]
    with pytest.raises(ModelResponseError, match="upstream died"):
        await _streamed(openai_model, events, server)


async def test_an_empty_anthropic_stream_is_a_response_error(
    server: ScriptedServer, anthropic_model: AnthropicModel
) -> None:
    # (The OpenAI adapter asks again without streaming: see test_local_servers.py.)
    with pytest.raises(ModelResponseError, match="stream ended"):
        await _streamed(anthropic_model, [], server)


@pytest.mark.parametrize("model_fixture", ["openai_model", "anthropic_model"])
async def test_a_stream_event_that_is_not_json_is_a_response_error(
    server: ScriptedServer, model_fixture: str, request: pytest.FixtureRequest
) -> None:
    model: Model = request.getfixturevalue(model_fixture)
    server.queue(Reply.sse(["data: {not json"]))
    with pytest.raises(ModelResponseError, match="not JSON"):
        await _collect(model.stream(REQUEST))


async def _collect(stream: AsyncIterator[StreamItem]) -> list[StreamItem]:
    return [item async for item in stream]


def _anthropic_events(*blocks: tuple[dict[str, Any], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    usage = {"input_tokens": 100, "cache_read_input_tokens": 50, "output_tokens": 1}
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"model": "claude-test", "usage": usage}}
    ]
    for index, (block, deltas) in enumerate(blocks):
        events.append({"type": "content_block_start", "index": index, "content_block": block})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 77, "input_tokens": None},
        }
    )
    events.append({"type": "message_stop"})
    return events


async def test_anthropic_stream_with_thinking_server_tools_and_tool_use(
    server: ScriptedServer, anthropic_model: AnthropicModel
) -> None:
    events = _anthropic_events(
        (
            {"type": "thinking", "thinking": "", "signature": ""},
            [{"type": "thinking_delta", "thinking": "Need facts."}],
        ),
        (
            {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {}},
            [{"type": "input_json_delta", "partial_json": '{"query": "x"}'}],
        ),
        ({"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": []}, []),
        (
            {"type": "text", "text": ""},
            [{"type": "text_delta", "text": "Let me "}, {"type": "text_delta", "text": "check."}],
        ),
        (
            {"type": "tool_use", "id": "toolu_1", "name": "search_docs", "input": {}},
            [
                {"type": "input_json_delta", "partial_json": ""},
                {"type": "input_json_delta", "partial_json": '{"que'},
                {"type": "input_json_delta", "partial_json": 'ry": "cats"}'},
            ],
        ),
        ({"type": "tool_use", "id": "toolu_2", "name": "list_docs", "input": {}}, []),
    )
    *deltas, response = await _streamed(anthropic_model, events, server)
    assert [d.text for d in deltas] == ["Let me ", "check."]
    assert response.text == "Let me check."
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("toolu_1", "search_docs", {"query": "cats"}),
        ("toolu_2", "list_docs", {}),
    ]
    assert response.extra == {"reasoning": "Need facts.", "server_tool_calls": ["web_search"]}
    assert response.finish_reason == "tool_calls"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (150, 77)


async def test_anthropic_invalid_streamed_tool_input_is_kept_raw(
    server: ScriptedServer, anthropic_model: AnthropicModel
) -> None:
    events = _anthropic_events(
        (
            {"type": "tool_use", "id": "toolu_1", "name": "search_docs", "input": {}},
            [{"type": "input_json_delta", "partial_json": '{"query": "ca'}],
        ),
    )
    *_, response = await _streamed(anthropic_model, events, server)
    assert response.tool_calls[0].arguments == {}
    assert response.tool_calls[0].raw_arguments == '{"query": "ca'


async def test_anthropic_error_event_in_a_stream(
    server: ScriptedServer, anthropic_model: AnthropicModel
) -> None:
    events = [
        {"type": "message_start", "message": {"usage": {"input_tokens": 3}}},
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    ]
    with pytest.raises(ModelResponseError, match="Overloaded"):
        await _streamed(anthropic_model, events, server)


@pytest.mark.parametrize(
    ("stop_reason", "finish_reason"),
    [("end_turn", "stop"), ("max_tokens", "length"), ("tool_use", "tool_calls"), ("x", "x")],
)
async def test_anthropic_stop_reasons_use_the_common_vocabulary(
    server: ScriptedServer, anthropic_model: AnthropicModel, stop_reason: str, finish_reason: str
) -> None:
    body = {
        "content": [{"type": "text", "text": "Hi"}],
        "stop_reason": stop_reason,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    server.queue(Reply.json(body))
    assert (await anthropic_model.complete(REQUEST)).finish_reason == finish_reason


async def test_anthropic_body_of_the_wrong_shape_is_a_response_error(
    server: ScriptedServer, anthropic_model: AnthropicModel
) -> None:
    server.queue(Reply.json({"content": [{"type": "tool_use", "input": {}}]}))  # no id, no name
    with pytest.raises(ModelResponseError, match="unexpected message"):
        await anthropic_model.complete(REQUEST)
