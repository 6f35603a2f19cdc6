"""The TOOL_CALL / FINAL text protocol: the parser, the history mapping, the re-prompt."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docuchat.models.base import (
    AssistantMessage,
    ModelRequest,
    ModelResponse,
    TextChunk,
    TokenUsage,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
)
from docuchat.models.scripted import ScriptedModel, reply
from docuchat.models.text_protocol import (
    PROTOCOL_ERROR,
    ProtocolCall,
    ProtocolReply,
    TextProtocolModel,
    parse_reply,
    render_call,
)

SEARCH = ToolSpec(
    "search_docs", "Search the documents.", {"type": "object", "properties": {"query": {}}}
)

# --- the parser -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'TOOL_CALL {"tool": "search_docs", "input": {"query": "cats"}}',
            ProtocolReply(calls=(ProtocolCall("search_docs", {"query": "cats"}),)),
        ),
        (
            'I will search.\nTOOL_CALL {"tool": "a", "input": {}}\n'
            'TOOL_CALL {"tool": "b", "input": {"x": "}{"}} and then I wait',
            ProtocolReply(calls=(ProtocolCall("a", {}), ProtocolCall("b", {"x": "}{"}))),
        ),
        (
            'FINAL {"answer": "Cats sleep 16 hours [1].", "citations": [1, 2]}',
            ProtocolReply(answer="Cats sleep 16 hours [1].", citations=(1, 2)),
        ),
        (
            '```\nFINAL: {"answer": "Yes", "citations": [3, "4", true, 5.5, 6]}\n```\nThanks',
            ProtocolReply(answer="Yes", citations=(3, 6)),
        ),
        (
            'FINAL\n{\n  "answer": "multi\\nline",\n  "citations": []\n}',
            ProtocolReply(answer="multi\nline"),
        ),
        ('  **TOOL_CALL** {"tool": "a"}', ProtocolReply(calls=(ProtocolCall("a", {}),))),
        (
            'TOOL_CALL {"tool": "a", "input": {}}\nFINAL {"answer": "guessed"}',
            ProtocolReply(calls=(ProtocolCall("a", {}),)),  # the guess before results is dropped
        ),
        (
            'TOOL_CALL {"tool": "a", "input": "not an object"}\nFINAL {"answer": "ok"}',
            ProtocolReply(answer="ok"),
        ),
    ],
)
def test_valid_replies(text: str, expected: ProtocolReply) -> None:
    assert parse_reply(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "The answer is 42.",
        "TOOL_CALL search_docs(query='cats')",
        'TOOL_CALL {"input": {"query": "x"}}',
        'TOOL_CALL {"tool": "", "input": {}}',
        'FINAL {"answer": "unterminated',
        'FINAL {"answer": ""}',
        'FINAL ["answer"]',
        'FINALLY {"answer": "no"}',
        'Say FINAL {"answer": "mid-line does not count"}',
    ],
)
def test_replies_outside_the_protocol(text: str) -> None:
    assert parse_reply(text) is None


def test_final_only_accepts_plain_text_and_ignores_tool_calls() -> None:
    assert parse_reply("  Cats sleep a lot.\n", final_only=True) == ProtocolReply(
        answer="Cats sleep a lot."
    )
    assert parse_reply('FINAL {"answer": "A", "citations": [1]}', final_only=True) == (
        ProtocolReply(answer="A", citations=(1,))
    )
    assert parse_reply('TOOL_CALL {"tool": "a", "input": {}}', final_only=True) is None
    assert parse_reply("   ", final_only=True) is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
protocol_noise = st.sampled_from(
    ["TOOL_CALL", "FINAL", "FINAL:", "**TOOL_CALL**", "```", "{", "}", "\n", '"', "\\", " "]
)


@settings(max_examples=300)
@given(st.lists(st.text() | protocol_noise | json_values.map(json.dumps), max_size=8))
def test_the_parser_never_raises(pieces: list[str]) -> None:
    text = "".join(pieces)
    for final_only in (False, True):
        result = parse_reply(text, final_only=final_only)
        assert result is None or isinstance(result, ProtocolReply)


@given(st.text(), json_values)
def test_any_json_after_a_keyword_never_raises(prose: str, value: Any) -> None:
    for keyword in ("TOOL_CALL", "FINAL"):
        parse_reply(f"{prose}\n{keyword} {json.dumps(value)}\n{prose}")


def test_deeply_nested_json_does_not_raise() -> None:
    assert parse_reply("TOOL_CALL " + "[" * 100_000) is None
    assert parse_reply('FINAL {"answer": "x", "citations": ' + "[" * 100_000) is None


names = st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=20)
arguments = st.dictionaries(st.text(max_size=10), json_values, max_size=4)
prose_lines = st.lists(
    st.text(max_size=40).filter(lambda line: "TOOL_CALL" not in line and "FINAL" not in line),
    max_size=3,
)


@given(prose_lines, st.lists(st.tuples(names, arguments), min_size=1, max_size=3), prose_lines)
def test_rendered_calls_parse_back_amid_prose(
    before: list[str], calls: list[tuple[str, dict[str, Any]]], after: list[str]
) -> None:
    lines = [render_call(ToolCall("id", name, args)) for name, args in calls]
    text = "\n".join([*before, "```", *lines, "```", *after])
    assert parse_reply(text) == ProtocolReply(
        calls=tuple(ProtocolCall(name, args) for name, args in calls)
    )


@given(
    st.text(min_size=1).filter(str.strip),
    st.lists(st.integers()),
    st.text().filter(lambda t: "\n" not in t),
)
def test_final_answers_parse_back_with_unicode_and_trailing_prose(
    answer: str, citations: list[int], trailing: str
) -> None:
    line = "FINAL " + json.dumps({"answer": answer, "citations": citations}, ensure_ascii=False)
    assert parse_reply(f"{line}{trailing}") == ProtocolReply(
        answer=answer, citations=tuple(citations)
    )


# --- the model over a chat model without tools -------------------------------------------------


def _request(**changes: Any) -> ModelRequest:
    request = ModelRequest(
        system="You research documents.",
        messages=[
            UserMessage("How long do cats sleep?"),
            AssistantMessage(
                "Searching.",
                (
                    ToolCall("c1", "search_docs", {"query": "cat sleep"}),
                    ToolCall("c2", "search_docs", {"query": "felines"}),
                ),
            ),
            ToolResultsMessage(
                (
                    ToolResult("c1", "search_docs", "[1] Cats sleep 16 hours."),
                    ToolResult("c2", "search_docs", "index offline", is_error=True),
                )
            ),
        ],
        tools=[SEARCH],
        max_output_tokens=300,
    )
    return dataclasses.replace(request, **changes)


async def test_the_inner_model_gets_plain_chat_and_the_reply_becomes_tool_calls() -> None:
    inner = ScriptedModel([reply('TOOL_CALL {"tool": "search_docs", "input": {"query": "naps"}}')])
    response = await TextProtocolModel(inner).complete(_request())

    (call,) = response.tool_calls
    assert (call.name, call.arguments) == ("search_docs", {"query": "naps"})
    assert call.id.startswith("call_")
    assert response.finish_reason == "tool_calls"

    (sent,) = inner.requests
    assert sent.tools == ()
    assert sent.max_output_tokens == 300
    assert sent.system.startswith("You research documents.\n\n## Tools\n")
    assert "- search_docs: Search the documents." in sent.system
    assert 'TOOL_CALL {"tool": "<tool name>"' in sent.system
    assert sent.messages == [
        UserMessage("How long do cats sleep?"),
        AssistantMessage(
            "Searching.\n"
            'TOOL_CALL {"tool": "search_docs", "input": {"query": "cat sleep"}}\n'
            'TOOL_CALL {"tool": "search_docs", "input": {"query": "felines"}}'
        ),
        UserMessage(
            "Results of your tool calls:\n\n"
            "TOOL_RESULT search_docs\n[1] Cats sleep 16 hours.\n\n"
            "TOOL_RESULT search_docs (error)\nindex offline"
        ),
    ]


async def test_a_final_answer_carries_its_citations_and_streams_once() -> None:
    inner = ScriptedModel([reply('FINAL {"answer": "16 hours [1].", "citations": [1]}')])
    items = [item async for item in TextProtocolModel(inner).stream(_request())]
    assert items[0] == TextChunk("16 hours [1].")
    response = items[1]
    assert isinstance(response, ModelResponse)
    assert response.text == "16 hours [1]."
    assert response.extra["citations"] == [1]
    assert response.tool_calls == ()


async def test_one_reminder_then_success() -> None:
    inner = ScriptedModel([reply("Cats sleep a lot, I think."), reply('FINAL {"answer": "16 h"}')])
    response = await TextProtocolModel(inner).complete(_request())
    assert response.text == "16 h"
    retry = inner.requests[1]
    assert retry.messages[-2] == AssistantMessage("Cats sleep a lot, I think.")
    last = retry.messages[-1]
    assert isinstance(last, UserMessage)
    assert last.content.startswith("Your reply did not follow the protocol.")
    assert response.usage == TokenUsage(20, 10)  # both calls are paid for
    assert response.requests == 2  # and that usage measures no single request


async def test_a_second_failure_is_a_protocol_error_with_the_raw_text() -> None:
    inner = ScriptedModel([reply("no idea"), reply("still no idea")])
    response = await TextProtocolModel(inner).complete(_request())
    assert response.finish_reason == PROTOCOL_ERROR
    assert response.text == "still no idea"
    assert response.tool_calls == () and response.requests == 2
    inner.assert_all_consumed()


async def test_a_protocol_error_streams_no_text() -> None:
    model = TextProtocolModel(ScriptedModel([reply("?"), reply("??")]))
    items = [item async for item in model.stream(_request())]
    assert [type(item) for item in items] == [ModelResponse]  # no garbage shown as the answer


async def test_synthesis_asks_for_final_only_and_accepts_plain_text() -> None:
    inner = ScriptedModel([reply("Cats sleep about 16 hours a day.")])
    response = await TextProtocolModel(inner).complete(_request(tool_choice="none"))
    assert response.text == "Cats sleep about 16 hours a day."
    assert response.finish_reason == "stop"
    (sent,) = inner.requests
    assert "## Tools" not in sent.system
    assert "Tools are not available now" in sent.system


IMITATED_RESULT = (
    'TOOL_RESULT open_citation\n{"citation": 1, "title": "Benefits", "text": "Larkspur now offers'
    ' a bundle of 23 benefits."}'
)


@pytest.mark.parametrize("text", [IMITATED_RESULT, f"Here it is:\n{IMITATED_RESULT}"])
def test_a_made_up_tool_result_is_no_answer_even_when_plain_text_would_do(text: str) -> None:
    assert parse_reply(text, final_only=True) is None
    # Said in passing, not as a line of its own, the word is no imitation.
    assert parse_reply("The TOOL_RESULT line is docuchat's.", final_only=True) is not None


async def test_synthesis_that_imitates_a_tool_result_is_reminded_then_a_protocol_error() -> None:
    inner = ScriptedModel([reply(IMITATED_RESULT), reply(IMITATED_RESULT)])
    response = await TextProtocolModel(inner).complete(_request(tool_choice="none"))
    assert response.finish_reason == PROTOCOL_ERROR and response.requests == 2
    reminder = inner.requests[1].messages[-1]
    assert isinstance(reminder, UserMessage) and 'FINAL {"answer"' in reminder.content
    inner.assert_all_consumed()


async def test_earlier_answers_are_shown_in_protocol_form_and_roles_alternate() -> None:
    inner = ScriptedModel([reply('FINAL {"answer": "ok"}')])
    request = _request(
        messages=[
            UserMessage("Q1"),
            AssistantMessage("A1"),
            UserMessage("Q2"),
            UserMessage("(more detail)"),
        ]
    )
    await TextProtocolModel(inner).complete(request)
    assert inner.requests[0].messages == [
        UserMessage("Q1"),
        AssistantMessage('FINAL {"answer": "A1"}'),
        UserMessage("Q2\n\n(more detail)"),
    ]


def test_the_model_is_named_after_its_inner_model() -> None:
    model = TextProtocolModel(ScriptedModel([], name="local-llm"))
    assert model.name == "text:local-llm"
    assert model.token_estimator.observations == 0
