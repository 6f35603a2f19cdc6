"""Record real exchanges with a real llama.cpp server into cassettes the test suite replays.

    .venv/bin/python bench/record_llm.py            # starts the server from .cache/llm-venv
    .venv/bin/python bench/record_llm.py --server llama-server   # llama.cpp's own server
    make record-llm [LLM_SERVER=llama-server]        # the same, building the server if needed

Every HTTP exchange between docuchat and the server passes through a recording proxy and is
written, as the VCR cassettes in tests/models/fixtures/recorded-llm are, to
``tests/models/fixtures/recorded-llm/<server>/<scenario>.yaml`` (``llama_cpp_python`` or
``llama_server``), with the scenario and what the research agent made of it under the key
``docuchat``. The suite replays them
exchange by exchange (tests/models/test_replay.py) and as whole research runs
(tests/models/test_recorded_runs.py), so CI needs neither the compiler nor the model.

Scenarios: the research agent over samples/documents in agent mode with native tool calls,
over the text protocol, and in pipeline mode, each streamed and not; a request too long for
the window (streamed and not); and a run with a 1,024-token window, which llama-cpp-python
does not report (docuchat assumes 2,048) and llama-server does (``/props``). The runs have
no time limit, so that a replay, which takes milliseconds, makes the same calls as the
recording did.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import yaml
from aiohttp import web

from docuchat.corpus.ingest import ingest_paths
from docuchat.errors import ContextOverflow
from docuchat.models.base import Model, ModelRequest, UserMessage
from docuchat.models.http import RetryPolicy
from docuchat.models.openai import OpenAIChatModel
from docuchat.models.text_protocol import TextProtocolModel
from docuchat.research import ResearchAgent
from docuchat.research.agent import DEFAULT_LIMITS
from docuchat.search import HybridSearcher
from docuchat.store import Store, open_store
from llm_server import LLM_VENV, ROOT, SOFTWARE, LiveServer, Software, llama_server

FIXTURES = ROOT / "tests" / "models" / "fixtures" / "recorded-llm"
SAMPLES = ROOT / "samples" / "documents"
OWNER = "local"
QUESTION = "How many days of annual leave do full-time employees get?"
STABLE_ORIGIN = "http://127.0.0.1"  # the port changes with every recording
KEPT_HEADERS = ("content-type",)
# No retries (a server error is recorded once, as it happened) and no time limit worth the
# name, in the adapter or the proxy: a busy machine makes a 135M model slow, and a replay
# must make the same calls.
PATIENT = aiohttp.ClientTimeout(total=None, sock_connect=10, sock_read=3600)


@dataclass(frozen=True)
class Scenario:
    """A research question (``model`` is ``native`` or ``text``), or one overflowing request."""

    name: str
    model: str = "native"
    mode: str = "agent"
    stream: bool = False
    server_window: int = 2048
    overflow: bool = False

    def research(self) -> dict[str, Any]:
        fields = ("model", "mode", "stream")
        return {"question": QUESTION, **{name: getattr(self, name) for name in fields}}


SCENARIOS = (
    Scenario("agent_native_streamed", stream=True),
    Scenario("agent_native"),
    Scenario("agent_text_protocol_streamed", model="text", stream=True),
    Scenario("agent_text_protocol", model="text"),
    Scenario("pipeline_streamed", mode="pipeline", stream=True),
    Scenario("pipeline", mode="pipeline"),
    Scenario("overflow", overflow=True),
    Scenario("overflow_streamed", overflow=True, stream=True),
    # llama-cpp-python never reports its window: docuchat assumes 2,048 tokens, the server
    # has 1,024, and what does not fit comes back as the typed outcome. llama-server reports
    # it, and docuchat holds its requests to it.
    Scenario("agent_window_too_small", server_window=1024),
)
SOFTWARE_NAMES = {
    "llama-cpp-python": "llama-cpp-python server",
    "llama-server": "llama.cpp llama-server (vendored in llama-cpp-python 0.3.36)",
}


@dataclass
class RecordingProxy:
    """Forwards every request to the live server and keeps each exchange."""

    target: str
    interactions: list[dict[str, Any]] = field(default_factory=list)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        async with (
            aiohttp.ClientSession(timeout=PATIENT) as session,
            session.request(
                request.method,
                f"{self.target}{request.rel_url}",
                data=body or None,
                headers={k: v for k, v in request.headers.items() if k.lower() in KEPT_HEADERS},
            ) as upstream,
        ):
            answer = await upstream.read()
            content_type = upstream.headers.get("content-type", "")
            self.interactions.append(
                _interaction(request, body, upstream.status, upstream.reason, content_type, answer)
            )
            return web.Response(
                status=upstream.status, body=answer, headers={"content-type": content_type}
            )


def _interaction(
    request: web.Request, body: bytes, status: int, reason: str | None, kind: str, answer: bytes
) -> dict[str, Any]:
    sent: dict[str, Any] = {"method": request.method, "uri": f"{STABLE_ORIGIN}{request.rel_url}"}
    if body:
        sent["headers"] = {"content-type": ["application/json"]}
        sent["parsed_body"] = json.loads(body)
    received: dict[str, Any] = {
        "status": {"code": status, "message": reason or ""},
        "headers": {"content-type": [kind]},
    }
    if "json" in kind:
        received["parsed_body"] = json.loads(answer)
    else:
        received["body"] = {"string": answer.decode()}
    return {"request": sent, "response": received}


async def _with_proxy(
    server: LiveServer, work: Callable[[str], Awaitable[dict[str, Any]]]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    proxy = RecordingProxy(server.base_url.removesuffix("/v1"))
    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.router.add_route("*", "/{path:.*}", proxy.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        outcome = await work(f"http://127.0.0.1:{port}/v1")
    finally:
        await runner.cleanup()
    return proxy.interactions, outcome


def _model(scenario: Scenario, base_url: str) -> Model:
    model = OpenAIChatModel(
        "smollm2", base_url=base_url, retry=RetryPolicy(max_retries=0), timeout=PATIENT
    )
    return TextProtocolModel(model) if scenario.model == "text" else model


async def _ask(scenario: Scenario, store: Store, base_url: str) -> dict[str, Any]:
    agent = ResearchAgent(
        HybridSearcher(store),
        _model(scenario, base_url),
        owner=OWNER,
        mode="pipeline" if scenario.mode == "pipeline" else "agent",
        limits=dataclasses.replace(DEFAULT_LIMITS, timeout=None, model_timeout=None),
    )
    answer = await agent.ask(QUESTION, stream_text=scenario.stream)
    return answer.to_dict(trace=False)


async def _overflow(scenario: Scenario, base_url: str) -> dict[str, Any]:
    """One request far longer than the window, sent by the adapter itself."""
    model = OpenAIChatModel("smollm2", base_url=base_url, retry=RetryPolicy(max_retries=0))
    request = ModelRequest("", [UserMessage("leave " * 3000)], max_output_tokens=16)
    try:
        if scenario.stream:
            [item async for item in model.stream(request)]
        else:
            await model.complete(request)
    except ContextOverflow as overflow:
        return {
            "error": "ContextOverflow",
            "message": overflow.message,
            "context_window": overflow.context_window,
            "prompt_tokens": overflow.prompt_tokens,
        }
    raise SystemExit(f"{scenario.name}: the server accepted a request longer than its window")


def _write(scenario: Scenario, server: LiveServer, interactions: list[Any], result: Any) -> Path:
    out = FIXTURES / server.software.replace("-", "_")
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{scenario.name}.yaml"
    cassette = {
        "interactions": interactions,
        "docuchat": {
            "research": None if scenario.overflow else scenario.research(),
            "server": {
                "software": SOFTWARE_NAMES[server.software],
                "model": server.model_file.name,
                **server.options,
                "n_ctx": scenario.server_window,
            },
            "result": result,
        },
    }
    with path.open("w", encoding="utf-8") as handle:
        yaml.safe_dump(cassette, handle, sort_keys=False, allow_unicode=True, width=100)
    return path


def summary(result: dict[str, Any]) -> str:
    if "error" in result:
        return f"{result['error']}: {result['message'][:70]}"
    usage = result["total_usage"]
    return (
        f"{result['outcome']}{' (extractive)' if result['extractive'] else ''}, "
        f"{len(result['citations'])} citations, {usage['model_calls']} model calls, "
        f"{usage['input_tokens']}+{usage['output_tokens']} tokens"
    )


async def _record_all(venv: Path, software: Software, store: Store, only: set[str]) -> None:
    for window in sorted({s.server_window for s in SCENARIOS}, reverse=True):
        chosen = [s for s in SCENARIOS if s.server_window == window]
        chosen = [s for s in chosen if not only or s.name in only]
        if not chosen:
            continue
        with llama_server(venv, software=software, context_window=window) as server:
            for scenario in chosen:

                async def work(base_url: str, scenario: Scenario = scenario) -> Any:
                    if scenario.overflow:
                        return await _overflow(scenario, base_url)
                    return await _ask(scenario, store, base_url)

                interactions, result = await _with_proxy(server, work)
                path = _write(scenario, server, interactions, result)
                print(f"{scenario.name}: {summary(result)} -> {path.name}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--llm-venv", type=Path, default=LLM_VENV)
    parser.add_argument("--server", choices=SOFTWARE, default=SOFTWARE[0])
    parser.add_argument("--only", nargs="*", default=[], help="scenario names to record")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        store = open_store(Path(home) / "docuchat.db")
        try:
            ingest_paths(store, OWNER, [SAMPLES])
            asyncio.run(_record_all(args.llm_venv, args.server, store, set(args.only)))
        finally:
            store.close()


if __name__ == "__main__":
    main()
