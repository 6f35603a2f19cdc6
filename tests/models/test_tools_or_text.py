"""``openai:<model>`` against a llama-server whose chat template drops tools: the text protocol.

llama-server says so in ``/props`` (``chat_template_caps.supports_tools: false``, as the
recorded SmolLM2 server does); the research agent then asks over TOOL_CALL / FINAL lines and
sends no ``tools`` a template would silently drop. Servers that take tools, or say nothing,
get native tools as before; ``text:`` stays the explicit choice.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import aiohttp
import pytest

from docuchat.models import AssistantMessage, Message, get_model
from docuchat.models.servers import probe_server
from docuchat.research import ResearchAgent
from docuchat.research.agent import DEFAULT_LIMITS, Mode
from docuchat.search import HybridSearcher
from docuchat.store import Store

from .conftest import Reply, ScriptedServer, completion

QUESTION = "How many days of annual leave do employees get?"
NOTE = "llama.cpp's chat template for smollm2 drops tools: using the text protocol"


SEARCH = {"tool": "search_docs", "input": {"query": "annual leave days"}}
FINAL = {"answer": "Employees get 25 days of annual leave [1].", "citations": [1]}


def _protocol_run(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """A llama-server whose template drops tools, and a search then an answer in the protocol."""
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    _llama_server(server, False)
    server.queue(
        Reply.json(completion(f"TOOL_CALL {json.dumps(SEARCH)}")),
        Reply.json(completion(f"FINAL {json.dumps(FINAL)}")),
    )


def _llama_server(server: ScriptedServer, supports_tools: Any) -> None:
    props: dict[str, Any] = {"default_generation_settings": {"n_ctx": 8192}}
    if supports_tools is not None:
        props["chat_template_caps"] = {"supports_tools": supports_tools}
    server.routes[("GET", "/props")] = Reply.json(props)
    server.routes[("GET", "/v1/models")] = Reply.json({"data": [{"id": "smollm2"}]})


@pytest.mark.parametrize(
    ("caps", "read"), [(False, False), (True, True), (None, None), ("false", None)]
)
async def test_the_probe_reads_whether_the_template_takes_tools(
    server: ScriptedServer, caps: Any, read: bool | None
) -> None:
    _llama_server(server, caps)
    async with aiohttp.ClientSession() as session:
        info = await probe_server(session, f"{server.url}/v1", "smollm2")
    assert info is not None and info.kind == "llama.cpp"
    assert info.supports_tools is read  # a value of the wrong type is "not said"
    assert info.drops_tools is (read is False)


def _ask(server: ScriptedServer, store: Store, spec: str, mode: Mode = "agent") -> ResearchAgent:
    return ResearchAgent(
        HybridSearcher(store),
        get_model(spec),
        owner="local",
        mode=mode,
        limits=dataclasses.replace(DEFAULT_LIMITS, timeout=None, model_timeout=None),
    )


def _calls(messages: tuple[Message, ...]) -> list[str]:
    return [
        call.name
        for message in messages
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls
    ]


def _posts(server: ScriptedServer) -> list[dict[str, Any]]:
    return [request.json() for request in server.requests if request.method == "POST"]


@pytest.mark.parametrize("stream", [False, True])
async def test_a_template_that_drops_tools_gets_the_text_protocol(
    server: ScriptedServer, store: Store, monkeypatch: pytest.MonkeyPatch, stream: bool
) -> None:
    _protocol_run(server, monkeypatch)
    answer = await _ask(server, store, "openai:smollm2").ask(QUESTION, stream_text=stream)
    sent = _posts(server)
    assert len(sent) == 2
    assert all("tools" not in body and "tool_choice" not in body for body in sent)
    assert "TOOL_CALL" in sent[0]["messages"][0]["content"]  # the protocol, in the system prompt
    # The search's results came back as plain text, in a user message.
    assert [m["role"] for m in sent[1]["messages"]] == ["system", "user", "assistant", "user"]
    assert sent[1]["messages"][2]["content"].startswith("TOOL_CALL ")
    assert answer.mode == "agent" and not answer.reminded and not answer.fallback
    assert answer.answer.startswith("Employees get 25 days of annual leave")
    assert _calls(answer.run.messages) == ["search_docs"]
    assert (answer.model, answer.model_choice) == ("openai:smollm2", NOTE)


@pytest.mark.parametrize("caps", [True, None])
async def test_a_template_that_takes_tools_or_says_nothing_gets_native_tools(
    server: ScriptedServer, store: Store, monkeypatch: pytest.MonkeyPatch, caps: bool | None
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    _llama_server(server, caps)
    call = {"id": "c1", "type": "function"}
    call["function"] = {"name": "search_docs", "arguments": '{"query": "annual leave days"}'}
    server.queue(
        Reply.json(completion(None, tool_calls=[call])),
        Reply.json(completion("Employees get 25 days of annual leave [1].")),
    )
    answer = await _ask(server, store, "openai:smollm2").ask(QUESTION, stream_text=False)
    assert answer.run.ok and not answer.reminded
    sent = _posts(server)
    assert "search_docs" in [tool["function"]["name"] for tool in sent[0]["tools"]]
    assert "TOOL_CALL" not in sent[0]["messages"][0]["content"]
    assert any(m["role"] == "tool" for m in sent[1]["messages"])
    assert _calls(answer.run.messages) == ["search_docs"]
    assert answer.model_choice == ""


async def test_an_explicit_text_spec_stays_the_choice_and_says_nothing(
    server: ScriptedServer, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    _protocol_run(server, monkeypatch)
    answer = await _ask(server, store, "text:openai:smollm2").ask(QUESTION, stream_text=False)
    assert all("tools" not in body for body in _posts(server))
    assert (answer.model, answer.model_choice) == ("text:openai:smollm2", "")


async def test_the_pipelines_answer_comes_in_the_protocol_too(
    server: ScriptedServer, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its transcript carries the fixed search and opened passages as calls and results:
    # they reach the model as TOOL_CALL lines and text, as with ``text:``.
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    _llama_server(server, False)
    server.queue(Reply.json(completion(f"FINAL {json.dumps(FINAL)}")))
    answer = await _ask(server, store, "openai:smollm2", "pipeline").ask(QUESTION)
    [sent] = _posts(server)
    assert "tools" not in sent and "Tools are not available now" in sent["messages"][0]["content"]
    assert "TOOL_CALL" in sent["messages"][2]["content"]
    assert answer.mode == "pipeline" and answer.answer.startswith("Employees get 25 days")
    assert answer.model_choice == NOTE
