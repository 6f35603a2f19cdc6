"""Whole research runs recorded from real llama.cpp servers, replayed over a local HTTP server.

bench/record_llm.py ran the research agent over samples/documents against llama-cpp-python's
server and against llama.cpp's own llama-server, with SmolLM2-135M-Instruct (agent mode with
native tool calls, the text protocol, the pipeline; streamed and not; a 1,024-token window;
a request longer than the window). Here the same agent runs against the recorded answers: it
must end as the recording did (outcome, answer, citations, labels, token counts) and send
requests of the shapes the real server accepted; the probe must tell the server as it did,
and an overflow must be typed with the server's own figures.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml

from docuchat.errors import ContextOverflow
from docuchat.models import get_model
from docuchat.models.base import Model, ModelRequest, UserMessage
from docuchat.models.http import RetryPolicy
from docuchat.models.openai import OpenAIChatModel
from docuchat.models.servers import ServerKind, probe_server
from docuchat.models.text_protocol import TextProtocolModel
from docuchat.research import ResearchAgent
from docuchat.research.agent import DEFAULT_LIMITS
from docuchat.search import HybridSearcher
from docuchat.store import Store

from .conftest import Reply, ScriptedServer
from .recorded import FIXTURES


def _load(cassette: Path) -> dict[str, Any]:
    recording: dict[str, Any] = yaml.load(cassette.read_bytes(), Loader=yaml.CSafeLoader)
    return recording


# The recording directory of each server, and what the probe must take it for.
SERVERS: dict[str, ServerKind] = {
    "llama_cpp_python": "llama-cpp-python",
    "llama_server": "llama.cpp",
}
RECORDINGS = [path for server in SERVERS for path in sorted((FIXTURES / server).glob("*.yaml"))]
RUNS = [path for path in RECORDINGS if _load(path)["docuchat"]["research"] is not None]
OVERFLOWS = [path for path in RECORDINGS if _load(path)["docuchat"]["research"] is None]


def _name(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


SAME = (
    "answer",
    "outcome",
    "forced",
    "fallback",
    "fallback_reason",
    "reminded",
    "extractive",
    "mode",
    "model",
    "context_window",
    "removed_citations",
    "unsupported_claims",
    "verified_citations",
)
COUNTS = ("input_tokens", "output_tokens", "model_calls", "estimated_calls", "tool_calls")


@pytest.mark.parametrize("recorded_from", SERVERS)
def test_every_mode_was_recorded(recorded_from: str) -> None:
    research = [
        _load(path)["docuchat"]["research"] for path in RUNS if path.parent.name == recorded_from
    ]
    modes = {(r["model"], r["mode"], r["stream"]) for r in research}
    assert {("native", "agent"), ("text", "agent"), ("native", "pipeline")} == {
        (model, mode) for model, mode, _stream in modes
    }
    assert {stream for *_, stream in modes} == {True, False}
    overflows = [_load(path) for path in OVERFLOWS if path.parent.name == recorded_from]
    streamed = {
        bool(o["interactions"][0]["request"]["parsed_body"].get("stream")) for o in overflows
    }
    assert streamed == {True, False}


@pytest.mark.parametrize("cassette", RUNS, ids=_name)
async def test_the_probe_tells_the_server_as_it_was(cassette: Path, server: ScriptedServer) -> None:
    recording = _load(cassette)
    _serve(server, recording["interactions"])
    async with aiohttp.ClientSession() as session:
        info = await probe_server(session, f"{server.url}/v1", "smollm2")
    assert info is not None and info.kind == SERVERS[cassette.parent.name]
    # llama-server says its window (the slot's -c); llama-cpp-python says none.
    reported = recording["docuchat"]["server"]["n_ctx"] if info.kind == "llama.cpp" else None
    assert info.context_window == reported
    # SmolLM2's own template has no tools branch: llama-server says it drops them.
    assert info.drops_tools is (info.kind == "llama.cpp")


@pytest.mark.parametrize("cassette", OVERFLOWS, ids=_name)
async def test_a_recorded_overflow_is_typed_with_the_servers_figures(
    cassette: Path, server: ScriptedServer
) -> None:
    recording = _load(cassette)
    want, sent = recording["docuchat"]["result"], _serve(server, recording["interactions"])
    model = OpenAIChatModel(
        "smollm2", base_url=f"{server.url}/v1", retry=RetryPolicy(max_retries=0)
    )
    request = ModelRequest(
        "", [UserMessage(sent[0]["messages"][0]["content"])], max_output_tokens=16
    )
    with pytest.raises(ContextOverflow) as raised:
        await _send(model, request, stream=bool(sent[0].get("stream")))
    got = raised.value
    assert (got.message, got.context_window, got.prompt_tokens) == (
        want["message"],
        want["context_window"],
        want["prompt_tokens"],
    )


async def _send(model: Model, request: ModelRequest, *, stream: bool) -> None:
    if stream:
        [item async for item in model.stream(request)]
    else:
        await model.complete(request)


@pytest.mark.parametrize("cassette", RUNS, ids=_name)
async def test_a_recorded_run_ends_as_it_did(
    cassette: Path, server: ScriptedServer, store: Store
) -> None:
    recording = _load(cassette)
    research, want = recording["docuchat"]["research"], recording["docuchat"]["result"]
    recorded_posts = _serve(server, recording["interactions"])
    agent = ResearchAgent(
        HybridSearcher(store),
        _model(research["model"], server),
        owner="local",
        mode=research["mode"],
        limits=dataclasses.replace(DEFAULT_LIMITS, timeout=None, model_timeout=None),
    )
    got = (await agent.ask(research["question"], stream_text=research["stream"])).to_dict()
    assert {key: got[key] for key in SAME} == {key: want[key] for key in SAME}
    assert _citations(got) == _citations(want)
    assert _counts(got) == _counts(want)
    sent = [request.json() for request in server.requests if request.method == "POST"]
    assert [_shape(body) for body in sent] == [_shape(body) for body in recorded_posts]
    # SmolLM2 over the text protocol imitates the transcript's tool results: never an answer.
    assert "TOOL_RESULT" not in (got["answer"] or "")


# What ``openai:smollm2`` sends llama-server once the probe said the template drops tools:
# exactly what ``text:`` sent in these recordings.
SWITCHED = [
    path for path in RUNS if path.parent.name == "llama_server" and "text_protocol" in path.stem
]


@pytest.mark.parametrize("cassette", SWITCHED, ids=_name)
async def test_openai_spec_speaks_the_recorded_text_protocol_to_a_template_without_tools(
    cassette: Path, server: ScriptedServer, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    recording = _load(cassette)
    research, want = recording["docuchat"]["research"], recording["docuchat"]["result"]
    recorded_posts = _serve(server, recording["interactions"])
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    agent = ResearchAgent(
        HybridSearcher(store),
        get_model("openai:smollm2"),
        owner="local",
        mode=research["mode"],
        limits=dataclasses.replace(DEFAULT_LIMITS, timeout=None, model_timeout=None),
    )
    got = (await agent.ask(research["question"], stream_text=research["stream"])).to_dict()
    same = [key for key in SAME if key != "model"]
    assert {key: got[key] for key in same} == {key: want[key] for key in same}
    assert (got["model"], want["model"]) == ("openai:smollm2", "text:openai:smollm2")
    assert got["model_choice"] == (
        "llama.cpp's chat template for smollm2 drops tools: using the text protocol"
    )
    assert _citations(got) == _citations(want)
    assert _counts(got) == _counts(want)
    sent = [request.json() for request in server.requests if request.method == "POST"]
    assert [_shape(body) for body in sent] == [_shape(body) for body in recorded_posts]
    # The protocol's own words, in the system prompt; no tools for the template to drop.
    assert all("## How to reply" in body["messages"][0]["content"] for body in sent)


def _serve(server: ScriptedServer, interactions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """GETs answered by path, POSTs in the recorded order; returns the recorded POST bodies."""
    posts = []
    for interaction in interactions:
        request, response = interaction["request"], interaction["response"]
        reply = _reply(response)
        if request["method"] == "GET":
            server.routes[("GET", request["uri"].removeprefix("http://127.0.0.1"))] = reply
        else:
            server.queue(reply)
            posts.append(request["parsed_body"])
    return posts


def _reply(response: dict[str, Any]) -> Reply:
    status = response["status"]["code"]
    if "parsed_body" in response:
        return Reply.json(response["parsed_body"], status=status)
    body = response["body"]["string"].encode()
    headers = {"content-type": response["headers"]["content-type"][0]}
    return Reply(status=status, headers=headers, chunks=(body,) if body else (), body=b"")


def _model(kind: str, server: ScriptedServer) -> Model:
    model = OpenAIChatModel(
        "smollm2", base_url=f"{server.url}/v1", retry=RetryPolicy(max_retries=0)
    )
    return TextProtocolModel(model) if kind == "text" else model


def _citations(result: dict[str, Any]) -> list[tuple[Any, ...]]:
    keys = ("n", "title", "page", "quote", "verified")
    return [tuple(c[key] for key in keys) for c in result["citations"]]


def _counts(result: dict[str, Any]) -> dict[str, int]:
    return {key: result["total_usage"][key] for key in COUNTS}


def _shape(body: dict[str, Any]) -> tuple[Any, ...]:
    """What the server needed of a request: no null content, the roles (``tool`` messages only
    for a server whose template shows them), tool_choice beside tools, the stream flag and the
    answer cap."""
    messages = body["messages"]
    assert all(isinstance(m["content"], str) for m in messages)
    tools = tuple(t["function"]["name"] for t in body.get("tools", ()))
    assert bool(tools) == ("tool_choice" in body)
    return (
        tuple(m["role"] for m in messages),
        tools,
        str(body.get("tool_choice")),
        bool(body.get("stream")),
        body.get("max_tokens"),
    )
