"""``--model auto`` over real local HTTP servers: the first serving a chat model, else offline."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from docuchat.cli.main import cli
from docuchat.models.auto import choose_model
from docuchat.models.openai import OpenAIChatModel
from docuchat.models.tools_or_text import ToolsOrTextModel

from .conftest import Reply, ScriptedServer, completion


def _closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"  # nobody listens once the socket is closed


def _lists(server: ScriptedServer, *entries: dict[str, str]) -> None:
    server.routes[("GET", "/v1/models")] = Reply.json({"object": "list", "data": list(entries)})


def test_nothing_answers_so_the_offline_model_answers_at_no_cost() -> None:
    nobody = [("Ollama", _closed_port_url()), ("llama.cpp", _closed_port_url())]
    started = time.perf_counter()
    choice = choose_model({}, nobody)
    elapsed = time.perf_counter() - started
    assert (choice.spec, choice.base_url) == ("offline", None)
    assert choice.why == "no model server answered (tried Ollama, llama.cpp)"
    assert elapsed < 0.1  # a closed local port refuses at once
    assert choice.served_model() is None


def test_the_configured_server_comes_first(server: ScriptedServer) -> None:
    _lists(server, {"id": "nomic-embed-text"}, {"id": "qwen2.5:0.5b"})
    choice = choose_model({"OPENAI_BASE_URL": f"{server.url}/v1"}, [("Ollama", _closed_port_url())])
    assert choice.spec == "openai:qwen2.5:0.5b"  # the embedding model is not a chat model
    assert choice.why == f"qwen2.5:0.5b served by OPENAI_BASE_URL at {server.url}/v1"
    model = choice.served_model()
    assert isinstance(model, ToolsOrTextModel) and model.name == "openai:qwen2.5:0.5b"
    assert isinstance(model.native, OpenAIChatModel)


def test_a_default_address_that_answers_is_named(server: ScriptedServer) -> None:
    _lists(server, {"id": "smollm2", "owned_by": "me"})
    local = [("Ollama", _closed_port_url()), ("llama.cpp", f"{server.url}/v1")]
    choice = choose_model({}, local)
    assert (choice.spec, choice.base_url) == ("openai:smollm2", f"{server.url}/v1")
    assert choice.why == f"smollm2 served by llama.cpp at {server.url}/v1"


def test_servers_without_a_usable_model_are_passed_over(server: ScriptedServer) -> None:
    # docuchat's own OpenAI-compatible endpoint, a server that wants a key, one listing nothing.
    _lists(server, {"id": "docuchat-agent", "owned_by": "docuchat"})
    assert choose_model({}, [("docuchat", f"{server.url}/v1")]).spec == "offline"
    server.routes[("GET", "/v1/models")] = Reply.json({"error": "no key"}, status=401)
    assert choose_model({}, [("locked", f"{server.url}/v1")]).spec == "offline"
    server.routes[("GET", "/v1/models")] = Reply(200, b"<html>not json</html>")
    assert choose_model({}, [("web page", f"{server.url}/v1")]).spec == "offline"
    _lists(server)
    assert choose_model({}, [("empty", f"{server.url}/v1")]).spec == "offline"


def test_the_key_is_sent_to_a_server_that_needs_one(server: ScriptedServer) -> None:
    _lists(server, {"id": "qwen"})
    environ = {"OPENAI_BASE_URL": f"{server.url}/v1", "OPENAI_API_KEY": "sk-local"}
    assert choose_model(environ, []).spec == "openai:qwen"
    assert server.requests[-1].headers["authorization"] == "Bearer sk-local"


def test_ask_says_which_model_auto_chose_and_the_window(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "leave.md").write_text("# Leave\n\nFull-time employees get 27 days of leave.\n")
    monkeypatch.setenv("DOCUCHAT_HOME", str(tmp_path))
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    monkeypatch.setenv("DOCUCHAT_MODEL", "auto")
    runner = CliRunner()
    assert runner.invoke(cli, ["ingest", str(docs), "--embedder", "none"]).exit_code == 0
    _lists(server, {"id": "qwen", "max_model_len": 8192})  # as vLLM lists its model
    search = {"id": "c1", "type": "function", "function": {"name": "search_docs"}}
    search["function"]["arguments"] = '{"query": "leave"}'  # type: ignore[index]
    server.queue(
        Reply.json(completion(None, tool_calls=[search])),
        Reply.json(completion("Full-time employees get 27 days of leave.")),
    )
    ask = ["ask", "How much leave?", "--embedder", "none", "--json", "--no-stream"]
    result = runner.invoke(cli, ask)
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert (answer["outcome"], answer["model"]) == ("answered", "openai:qwen")
    assert answer["model_choice"] == f"auto: qwen served by OPENAI_BASE_URL at {server.url}/v1"
    assert answer["context_window"] == {"tokens": 8192, "source": "vLLM max_model_len"}
    sent = [r.json() for r in server.requests if r.method == "POST"]
    assert [body["max_tokens"] for body in sent] == [2048, 2048]  # a quarter of the window
