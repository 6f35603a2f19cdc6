"""Neutral requests become each provider's exact wire JSON (as received by a local server)."""

from __future__ import annotations

import dataclasses
from typing import Any

from docuchat.models.anthropic import AnthropicModel
from docuchat.models.base import (
    AssistantMessage,
    ModelRequest,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
)
from docuchat.models.openai import OpenAIChatModel

from .conftest import Reply, ScriptedServer, anthropic_message, completion

SEARCH_SCHEMA = {"type": "object", "properties": {"query": {"type": "string"}}}
OPEN_SCHEMA = {
    "type": "object",
    "properties": {"docId": {"type": "string"}, "chunkId": {"type": "string"}},
}
TOOLS = (
    ToolSpec("search_docs", "Search the documents.", SEARCH_SCHEMA),
    ToolSpec("open_citation", "Open a passage.", OPEN_SCHEMA),
)

# Two iterations: two parallel calls (one fails), then one call; then the model must answer.
HISTORY = ModelRequest(
    system="Answer from the documents.",
    messages=[
        UserMessage("Compare A and B."),
        AssistantMessage(
            "Searching both.",
            (
                ToolCall("call_1", "search_docs", {"query": "A"}),
                ToolCall("call_2", "search_docs", {"query": "B"}),
            ),
        ),
        ToolResultsMessage(
            (
                ToolResult("call_1", "search_docs", '[{"chunkId": "c1"}]'),
                ToolResult("call_2", "search_docs", "index offline", is_error=True),
            )
        ),
        AssistantMessage(
            "", (ToolCall("call_3", "open_citation", {"docId": "d", "chunkId": "c1"}),)
        ),
        ToolResultsMessage((ToolResult("call_3", "open_citation", "A is 3 m long."),)),
    ],
    tools=TOOLS,
    max_output_tokens=512,
)

OPENAI_MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "Answer from the documents."},
    {"role": "user", "content": "Compare A and B."},
    {
        "role": "assistant",
        "content": "Searching both.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "search_docs", "arguments": '{"query":"A"}'},
            },
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "search_docs", "arguments": '{"query":"B"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '[{"chunkId": "c1"}]'},
    {"role": "tool", "tool_call_id": "call_2", "content": "index offline"},
    {
        "role": "assistant",
        "content": "",  # never null: llama-cpp-python answers HTTP 500 to null
        "tool_calls": [
            {
                "id": "call_3",
                "type": "function",
                "function": {
                    "name": "open_citation",
                    "arguments": '{"docId":"d","chunkId":"c1"}',
                },
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_3", "content": "A is 3 m long."},
]
OPENAI_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search_docs",
            "description": "Search the documents.",
            "parameters": SEARCH_SCHEMA,
        },
    },
    {
        "type": "function",
        "function": {
            "name": "open_citation",
            "description": "Open a passage.",
            "parameters": OPEN_SCHEMA,
        },
    },
]

ANTHROPIC_MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": "Compare A and B."},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Searching both."},
            {"type": "tool_use", "id": "call_1", "name": "search_docs", "input": {"query": "A"}},
            {"type": "tool_use", "id": "call_2", "name": "search_docs", "input": {"query": "B"}},
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "call_1",
                "content": '[{"chunkId": "c1"}]',
                "is_error": False,
            },
            {
                "type": "tool_result",
                "tool_use_id": "call_2",
                "content": "index offline",
                "is_error": True,
            },
        ],
    },
    {
        "role": "assistant",
        "content": [
            {
                "type": "tool_use",
                "id": "call_3",
                "name": "open_citation",
                "input": {"docId": "d", "chunkId": "c1"},
            }
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "call_3",
                "content": "A is 3 m long.",
                "is_error": False,
            }
        ],
    },
]
ANTHROPIC_TOOLS = [
    {"name": "search_docs", "description": "Search the documents.", "input_schema": SEARCH_SCHEMA},
    {"name": "open_citation", "description": "Open a passage.", "input_schema": OPEN_SCHEMA},
]


async def test_openai_wire_format(server: ScriptedServer, openai_model: OpenAIChatModel) -> None:
    server.queue(Reply.json(completion()))
    await openai_model.complete(HISTORY)
    assert server.requests[0].json() == {
        "model": "test-model",
        "messages": OPENAI_MESSAGES,
        "tools": OPENAI_TOOLS,
        "tool_choice": "auto",  # llama-cpp-python offers no tool without it
        "max_tokens": 512,
    }


async def test_anthropic_wire_format(
    server: ScriptedServer, anthropic_model: AnthropicModel
) -> None:
    server.queue(Reply.json(anthropic_message()))
    await anthropic_model.complete(HISTORY)
    assert server.requests[0].json() == {
        "model": "claude-test",
        "max_tokens": 512,
        "system": "Answer from the documents.",
        "messages": ANTHROPIC_MESSAGES,
        "tools": ANTHROPIC_TOOLS,
    }


def test_openai_without_tools_keeps_a_valid_tool_history(openai_model: OpenAIChatModel) -> None:
    body = openai_model.request_body(dataclasses.replace(HISTORY, tool_choice="none"))
    assert "tools" not in body
    assert "tool_choice" not in body
    assert body["messages"] == OPENAI_MESSAGES  # every tool_call still answered by its tool message


def test_anthropic_without_tools_declares_the_used_tools_and_forbids_them(
    anthropic_model: AnthropicModel,
) -> None:
    # Anthropic rejects tool_use blocks in a request without tool definitions.
    no_tools = dataclasses.replace(HISTORY, tool_choice="none", tools=(TOOLS[1],))
    body = anthropic_model.request_body(no_tools)
    assert body["tool_choice"] == {"type": "none"}
    assert body["tools"] == [
        ANTHROPIC_TOOLS[1],
        {
            "name": "search_docs",
            "description": "Not available now.",
            "input_schema": {"type": "object"},
        },
    ]
    assert body["messages"] == ANTHROPIC_MESSAGES


def test_without_tools_and_without_tool_history_no_tools_are_sent(
    openai_model: OpenAIChatModel, anthropic_model: AnthropicModel
) -> None:
    request = ModelRequest(system="", messages=[UserMessage("Hi")], tools=TOOLS, tool_choice="none")
    assert "tools" not in openai_model.request_body(request)
    anthropic_body = anthropic_model.request_body(request)
    assert "tools" not in anthropic_body
    assert "tool_choice" not in anthropic_body
    assert "system" not in anthropic_body
    assert anthropic_body["max_tokens"] == 4096


def test_unparseable_arguments_are_sent_back_as_an_empty_object(
    openai_model: OpenAIChatModel, anthropic_model: AnthropicModel
) -> None:
    broken = ToolCall("call_9", "search_docs", {}, raw_arguments='{"query": ')
    request = ModelRequest(
        system="",
        messages=[
            UserMessage("Find A"),
            AssistantMessage("", (broken,)),
            ToolResultsMessage((ToolResult("call_9", "search_docs", "bad JSON", is_error=True),)),
        ],
        tools=TOOLS,
    )
    openai_call = openai_model.request_body(request)["messages"][1]["tool_calls"][0]
    assert openai_call["function"]["arguments"] == "{}"
    anthropic_call = anthropic_model.request_body(request)["messages"][1]["content"][0]
    assert anthropic_call["input"] == {}


def test_anthropic_drops_empty_assistant_turns(anthropic_model: AnthropicModel) -> None:
    request = ModelRequest(
        system="", messages=[UserMessage("Hi"), AssistantMessage(""), UserMessage("Hello?")]
    )
    assert anthropic_model.request_body(request)["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Hi"}, {"type": "text", "text": "Hello?"}],
        }
    ]


def test_anthropic_puts_a_prompt_after_tool_results_in_the_same_user_turn(
    anthropic_model: AnthropicModel,
) -> None:
    request = ModelRequest(
        system="",
        messages=[
            UserMessage("Find A"),
            AssistantMessage("", (ToolCall("call_1", "search_docs", {"query": "A"}),)),
            ToolResultsMessage((ToolResult("call_1", "search_docs", "3 hits"),)),
            UserMessage("Answer now, without tools."),
        ],
        tool_choice="none",
    )
    messages = anthropic_model.request_body(request)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "call_1", "content": "3 hits", "is_error": False},
        {"type": "text", "text": "Answer now, without tools."},
    ]


def test_the_official_openai_api_gets_max_completion_tokens() -> None:
    model = OpenAIChatModel("o3-mini", api_key="sk-test")
    request = ModelRequest(system="", messages=[UserMessage("Hi")], max_output_tokens=100)
    body = model.request_body(request, stream=True)
    assert body["max_completion_tokens"] == 100
    assert "max_tokens" not in body
    assert body["stream_options"] == {"include_usage": True}
