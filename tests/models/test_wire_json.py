"""Wire JSON: compact and unescaped, whatever a model wrote into its tool arguments."""

from __future__ import annotations

import json

import pytest

from docuchat.models import wire_json
from docuchat.models.base import AssistantMessage, ModelRequest, ToolCall, UserMessage
from docuchat.models.openai import OpenAIChatModel


@pytest.mark.parametrize(
    "value",
    [
        {"query": "Zoë's café", "k": 3, "nested": [1.5, None, True]},
        {"id": 2**70},  # beyond orjson's 64-bit integers: the stdlib takes over
        {"id": -(2**64)},
    ],
)
def test_the_output_is_compact_unescaped_json_of_the_value(value: object) -> None:
    text = wire_json.dumps(value)
    assert json.loads(text) == value
    assert text == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_a_request_replaying_a_tool_call_with_a_huge_integer_is_still_built() -> None:
    call = ToolCall("call_1", "lookup", {"id": 2**70})
    request = ModelRequest(
        system="", messages=[UserMessage("q"), AssistantMessage("", (call,))], tools=()
    )
    body = OpenAIChatModel("m", base_url="http://127.0.0.1:1").request_body(request)
    arguments = body["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(arguments) == {"id": 2**70}
