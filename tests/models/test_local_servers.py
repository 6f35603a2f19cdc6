"""What the servers people run locally need from the OpenAI adapter, over a real local server.

The bodies are the servers' own shapes: llama-cpp-python's were captured from
its server; llama.cpp, vLLM, LM Studio, Ollama and Anthropic as their sources
and documentation give them.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from docuchat.errors import ContextOverflow, ModelHTTPError
from docuchat.models.anthropic import AnthropicModel
from docuchat.models.base import (
    AssistantMessage,
    ModelRequest,
    ModelResponse,
    TextChunk,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
    UseTool,
)
from docuchat.models.http import RetryPolicy
from docuchat.models.openai import OpenAIChatModel
from docuchat.models.text_protocol import TextProtocolModel
from docuchat.models.window import DEFAULT_WINDOW, context_window_of

from .conftest import Reply, ScriptedServer, anthropic_message, completion

NO_RETRY = RetryPolicy(max_retries=0)
SEARCH = ToolSpec("search_docs", "Search.", {"type": "object"})
FIRST_TURN = ModelRequest("Use the tools.", [UserMessage("Leave?")], (SEARCH,))
AFTER_A_SEARCH = ModelRequest(
    system="Use the tools.",
    messages=[
        UserMessage("Leave?"),
        AssistantMessage("", (ToolCall("call_0", "search_docs", {"query": "leave"}),)),
        ToolResultsMessage((ToolResult("call_0", "search_docs", "25 days of leave"),)),
    ],
    tools=(SEARCH,),
)


def _model(server: ScriptedServer, name: str = "smollm2") -> OpenAIChatModel:
    return OpenAIChatModel(name, base_url=f"{server.url}/v1", retry=NO_RETRY)


def _tool_call(call_id: str) -> dict[str, Any]:
    function = {"name": "search_docs", "arguments": '{"query": "more"}'}
    return {"id": call_id, "type": "function", "function": function}


# --- requests ----------------------------------------------------------------------------------


async def test_tool_choice_is_sent_and_a_forced_choice_names_the_tool(
    server: ScriptedServer,
) -> None:
    model = _model(server)
    server.queue(Reply.json(completion()), Reply.json(completion()))
    await model.complete(AFTER_A_SEARCH)
    forced = ModelRequest(
        "", [UserMessage("Leave?")], (SEARCH,), tool_choice=UseTool("search_docs")
    )
    await model.complete(forced)
    first, second = (request.json() for request in server.requests)
    assert first["tool_choice"] == "auto"
    assert first["messages"][2] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "call_0",
                "type": "function",
                "function": {"name": "search_docs", "arguments": '{"query":"leave"}'},
            }
        ],
    }
    assert second["tool_choice"] == {"type": "function", "function": {"name": "search_docs"}}


async def test_a_forced_choice_reaches_anthropic_and_the_text_protocol(
    server: ScriptedServer,
) -> None:
    forced = ModelRequest(
        "", [UserMessage("Leave?")], (SEARCH,), tool_choice=UseTool("search_docs")
    )
    anthropic = AnthropicModel("claude-test", api_key="k", base_url=server.url, retry=NO_RETRY)
    server.queue(Reply.json(anthropic_message()))
    await anthropic.complete(forced)
    assert server.requests[-1].json()["tool_choice"] == {"type": "tool", "name": "search_docs"}
    server.queue(Reply.json(completion('TOOL_CALL {"tool": "search_docs", "input": {}}')))
    response = await TextProtocolModel(_model(server)).complete(forced)
    assert "Now call the tool search_docs" in server.requests[-1].json()["messages"][0]["content"]
    assert [call.name for call in response.tool_calls] == ["search_docs"]


async def test_llama_cpp_python_gets_tool_results_as_a_user_message(
    server: ScriptedServer,
) -> None:
    server.routes[("GET", "/v1/models")] = Reply.json({"data": [{"id": "smollm2"}]})
    server.routes[("GET", "/openapi.json")] = Reply.json(
        {"info": {"title": "🦙 llama.cpp Python API"}}
    )
    model = _model(server)
    info = await model.server_info()
    assert info is not None and info.kind == "llama-cpp-python"
    server.queue(Reply.json(completion()))
    await model.complete(AFTER_A_SEARCH)
    messages = server.requests[-1].json()["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[3]["content"] == (
        "Results of your tool calls:\n\nTOOL_RESULT search_docs\n25 days of leave"
    )


async def test_llama_server_gets_a_forced_tool_as_required_with_that_tool_alone(
    server: ScriptedServer,
) -> None:
    # llama-server logs "Wrong type supplied for parameter 'tool_choice'" for an object and
    # answers as for "auto" (seen on the real server, bench/record_llm.py --server llama-server).
    server.routes[("GET", "/v1/models")] = Reply.json({"data": [{"id": "smollm2"}]})
    server.routes[("GET", "/props")] = Reply.json({"default_generation_settings": {"n_ctx": 2048}})
    model = _model(server)
    info = await model.server_info()
    assert info is not None and info.kind == "llama.cpp"
    read = ToolSpec("read_passage", "Read.", {"type": "object"})
    forced = ModelRequest(
        "", [UserMessage("Leave?")], (SEARCH, read), tool_choice=UseTool("search_docs")
    )
    server.queue(Reply.json(completion()), Reply.json(completion()))
    await model.complete(forced)
    await model.complete(dataclasses.replace(forced, tool_choice="auto"))
    first, second = (request.json() for request in server.requests if request.method == "POST")
    assert first["tool_choice"] == "required"
    assert [tool["function"]["name"] for tool in first["tools"]] == ["search_docs"]
    assert second["tool_choice"] == "auto"
    assert [tool["function"]["name"] for tool in second["tools"]] == ["search_docs", "read_passage"]


# --- responses ---------------------------------------------------------------------------------


async def test_a_call_id_the_conversation_already_used_is_replaced(server: ScriptedServer) -> None:
    # One server numbers calls per response, another gives every call of a response one id.
    server.queue(
        Reply.json(completion(None, tool_calls=[_tool_call("call_0")])),
        Reply.json(completion(None, tool_calls=[_tool_call("same"), _tool_call("same")])),
    )
    model = _model(server)
    reused = await model.complete(AFTER_A_SEARCH)
    twice = await model.complete(AFTER_A_SEARCH)
    assert reused.tool_calls[0].id not in ("call_0", "")
    first, second = (call.id for call in twice.tool_calls)
    assert first == "same" and second not in ("same", "call_0")


async def test_a_stream_closed_before_its_first_chunk_is_asked_again_whole(
    server: ScriptedServer,
) -> None:
    # llama-cpp-python, asked to stream a tool call it chose itself, closes an empty stream.
    server.queue(Reply.sse([]), Reply.json(completion(None, tool_calls=[_tool_call("c1")])))
    items = [item async for item in _model(server).stream(AFTER_A_SEARCH)]
    assert len(items) == 1 and isinstance(items[0], ModelResponse)
    assert [call.name for call in items[0].tool_calls] == ["search_docs"]
    assert items[0].usage is not None and items[0].usage.input_tokens == 12
    streamed, whole = (request.json() for request in server.requests)
    assert streamed["stream"] is True and "stream" not in whole
    server.queue(Reply.sse([]), Reply.json(completion("25 days.")))
    *chunks, answer = [item async for item in _model(server).stream(AFTER_A_SEARCH)]
    assert chunks == [TextChunk("25 days.")] and isinstance(answer, ModelResponse)
    assert answer.text == "25 days."


LLAMA_CPP_PYTHON = {
    "error": {
        "message": "This model's maximum context length is 2048 tokens. However, you requested "
        "2530 tokens (2510 in the messages, 20 in the completion). Please reduce the length of "
        "the messages or completion.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
}
LLAMA_SERVER = {
    "error": {
        "code": 400,
        "message": "request (4476 tokens) exceeds the available context size (4096 tokens), "
        "try increasing it",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": 4476,
        "n_ctx": 4096,
    }
}
VLLM = {
    "object": "error",
    "message": "This model's maximum context length is 8192 tokens. However, you requested 9000 "
    "tokens (8900 in the messages, 100 in the completion). Please reduce the length of the "
    "messages or completion.",
    "type": "BadRequestError",
    "param": None,
    "code": 400,
}
LM_STUDIO = {
    "error": "Trying to keep the first 4476 tokens when context the overflows. However, the "
    "model is loaded with context length of only 4096 tokens, which is not enough. Try to load "
    "the model with a larger context length, or provide a shorter input"
}
OLLAMA = {"error": "the input length exceeds the context length"}


@pytest.mark.parametrize(
    ("body", "window", "prompt"),
    [
        (LLAMA_CPP_PYTHON, 2048, 2510),
        (LLAMA_SERVER, 4096, 4476),
        (VLLM, 8192, 8900),
        (LM_STUDIO, 4096, None),
        (OLLAMA, None, None),
    ],
    ids=["llama-cpp-python", "llama-server", "vllm", "lm-studio", "ollama"],
)
async def test_a_context_overflow_is_typed_with_the_servers_figures(
    server: ScriptedServer, body: dict[str, Any], window: int | None, prompt: int | None
) -> None:
    server.queue(Reply.json(body, status=400))
    with pytest.raises(ContextOverflow) as raised:
        await _model(server).complete(AFTER_A_SEARCH)
    assert raised.value.status == 400
    assert (raised.value.context_window, raised.value.prompt_tokens) == (window, prompt)
    message = body["error"] if isinstance(body.get("error"), str) else json.dumps(body)
    assert raised.value.message[:40] in message


async def test_a_streamed_overflow_is_typed_too(server: ScriptedServer) -> None:
    # llama-cpp-python: an empty stream, then the whole call says why.
    server.queue(Reply.sse([]), Reply.json(LLAMA_CPP_PYTHON, status=400))
    with pytest.raises(ContextOverflow, match="maximum context length is 2048"):
        [item async for item in _model(server).stream(AFTER_A_SEARCH)]


async def test_anthropic_overflow_and_other_bad_requests(server: ScriptedServer) -> None:
    too_long = {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "prompt is too long: 215000 tokens > 200000 maximum",
        },
    }
    anthropic = AnthropicModel("claude-test", api_key="k", base_url=server.url, retry=NO_RETRY)
    server.queue(Reply.json(too_long, status=400))
    with pytest.raises(ContextOverflow) as raised:
        await anthropic.complete(AFTER_A_SEARCH)
    assert (raised.value.context_window, raised.value.prompt_tokens) == (200000, 215000)
    other = {"error": {"message": "temperature must be below 2", "type": "invalid_request_error"}}
    server.queue(Reply.json(other, status=400))
    with pytest.raises(ModelHTTPError) as plain:
        await _model(server).complete(AFTER_A_SEARCH)
    assert not isinstance(plain.value, ContextOverflow)


# --- what the server says about its model ------------------------------------------------------


def _routes(server: ScriptedServer, **routes: dict[str, Any]) -> None:
    for path, body in routes.items():
        method, _, route = path.partition(" ")
        server.routes[(method, route)] = Reply.json(body)


@pytest.mark.parametrize(
    ("routes", "kind", "window"),
    [
        (
            {
                "GET /v1/models": {"data": [{"id": "qwen", "meta": {"n_ctx_train": 32768}}]},
                "GET /props": {"default_generation_settings": {"n_ctx": 8192}},
            },
            "llama.cpp",
            (8192, "llama.cpp /props n_ctx"),
        ),
        (
            {
                "GET /v1/models": {"data": [{"id": "qwen", "meta": {"n_ctx_train": 32768}}]},
                "GET /props": {"default_generation_settings": {}},
            },
            "llama.cpp",
            (32768, "llama.cpp /v1/models meta.n_ctx_train"),
        ),
        (
            {
                "GET /v1/models": {"data": [{"id": "qwen"}]},
                "GET /api/version": {"version": "0.12.3"},
                "GET /api/ps": {"models": [{"name": "qwen", "context_length": 4096}]},
            },
            "ollama",
            (4096, "Ollama /api/ps context_length"),
        ),
        (
            {
                "GET /v1/models": {"data": [{"id": "qwen"}]},
                "GET /api/version": {"version": "0.12.3"},
                "POST /api/show": {"parameters": "temperature 0.7\nnum_ctx 16384"},
            },
            "ollama",
            (16384, "Ollama /api/show num_ctx"),
        ),
        (
            {"GET /v1/models": {"data": [{"id": "qwen", "max_model_len": 32768}]}},
            "vllm",
            (32768, "vLLM max_model_len"),
        ),
        (
            {
                "GET /v1/models": {"data": [{"id": "qwen"}]},
                "GET /api/v0/models/qwen": {
                    "max_context_length": 32768,
                    "loaded_context_length": 8192,
                },
            },
            "lm-studio",
            (8192, "LM Studio loaded_context_length"),
        ),
        (
            {"GET /v1/models": {"data": [{"id": "qwen", "context_length": 131072}]}},
            "other",
            (131072, "/models context_length"),
        ),
        (
            {"GET /v1/models": {"data": [{"id": "qwen"}]}},
            "other",
            (DEFAULT_WINDOW, "default for a model whose window is not reported"),
        ),
    ],
    ids=[
        "llama-server",
        "llama-server-train",
        "ollama-ps",
        "ollama-show",
        "vllm",
        "lm-studio",
        "openrouter",
        "unknown",
    ],
)
async def test_the_window_is_what_the_server_reports(
    server: ScriptedServer,
    routes: dict[str, dict[str, Any]],
    kind: str,
    window: tuple[int, str],
) -> None:
    _routes(server, **routes)
    model = _model(server, "qwen")
    info = await model.server_info()
    assert info is not None and info.kind == kind and info.models == ("qwen",)
    found = await context_window_of(TextProtocolModel(model))
    assert found is not None and (found.tokens, found.source) == window
    configured = await context_window_of(model, configured=1000)
    assert configured is not None and (configured.tokens, configured.source) == (1000, "configured")


async def test_a_server_that_lists_no_models_gets_the_default_window(
    server: ScriptedServer,
) -> None:
    model = _model(server)
    assert await model.server_info() is None
    window = await model.context_window()
    assert window.tokens == DEFAULT_WINDOW
    assert [request.method for request in server.requests].count("POST") == 0


async def test_hosted_apis_are_not_probed() -> None:
    model = OpenAIChatModel("gpt-4o", api_key="sk-test")  # never contacted: no request is made
    assert (await model.context_window()).tokens == 128_000
    assert await model.server_info() is None
