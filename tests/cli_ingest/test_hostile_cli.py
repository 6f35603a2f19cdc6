"""``docuchat ask`` against a real local model server that fails in each way: the exit status
says what happened (0 only with an answer), and a silent model is given up on in time."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from docuchat.cli.ask_cmd import EXIT_CODES
from docuchat.cli.main import cli
from model_servers import Answer, Behaviour, CallTool, Fail, Hang, ModelServer

NOTES = "# Field notes\n\nAlpine glaciers are retreating as summers warm.\n"
QUESTION = "Why are alpine glaciers retreating?"
UNMATCHED = "Xylophones or zeppelins?"
"""Matches nothing: no passage is read, so a failing model leaves no answer to quote."""
CITED = "Alpine glaciers are retreating as summers warm [1]."
MODEL_TIMEOUT, ANSWER_TIMEOUT = 1.0, 3.0


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    monkeypatch.setenv("DOCUCHAT_HOME", str(path))
    monkeypatch.setenv("DOCUCHAT_EMBEDDER", "none")
    monkeypatch.setenv("DOCUCHAT_MODEL_TIMEOUT", str(MODEL_TIMEOUT))
    for name in ("DOCUCHAT_DB", "DOCUCHAT_OWNER", "DOCUCHAT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    notes = tmp_path / "notes.md"
    notes.write_text(NOTES)
    assert run("ingest", str(notes)).exit_code == 0
    return path


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def serve(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., ModelServer]]:
    servers: list[ModelServer] = []

    def start(behaviour: Callable[[dict[str, Any]], Behaviour]) -> ModelServer:
        servers.append(server := ModelServer(behaviour))
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        return server

    yield start
    for server in servers:
        server.close()


def ask(*flags: str, question: str = QUESTION) -> tuple[Result, float]:
    started = time.monotonic()
    result = run(
        "ask", question, "--model", "openai:test", "--timeout", str(ANSWER_TIMEOUT), *flags
    )
    return result, time.monotonic() - started


def research(body: dict[str, Any]) -> Behaviour:
    """Search, open the first hit, answer citing it (a model doing its job)."""
    tools = [m for m in body["messages"] if m["role"] == "tool"]
    if "tools" not in body or len(tools) >= 2:
        return Answer(CITED)
    if not tools:
        return CallTool("search_docs", json.dumps({"query": "alpine glaciers"}))
    hit = json.loads(tools[0]["content"])["hits"][0]
    return CallTool("open_citation", json.dumps({"docId": hit["docId"], "chunkId": hit["chunkId"]}))


def test_an_answer_exits_0(serve: Callable[..., ModelServer]) -> None:
    serve(research)
    result, _ = ask("--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["answer"] == CITED and answer["citations"][0]["verified"]
    assert [c["verified"] for c in answer["claims"][0]["citations"]] == [True]


def test_a_model_error_exits_3_with_the_reason(serve: Callable[..., ModelServer]) -> None:
    serve(lambda _body: Fail(400, "this model does not exist"))
    result, _ = ask(question=UNMATCHED)
    assert result.exit_code == EXIT_CODES["model_error"] == 3
    assert "no answer (model_error: HTTP 400: this model does not exist)" in result.stderr
    assert "the agent ended with model_error" in result.stderr  # the fallback was tried
    # With passages read (the pipeline's), they are quoted instead: an answer, status 0.
    quoted, _ = ask()
    assert quoted.exit_code == 0, quoted.output
    assert "the answer quotes the passages read" in quoted.stdout


def test_a_model_that_never_answers_exits_4_after_one_model_timeout(
    serve: Callable[..., ModelServer],
) -> None:
    """Given up on after MODEL_TIMEOUT, and not asked again by the pipeline fallback, which
    would only wait on the same silent model."""
    server = serve(lambda _body: Hang())
    result, seconds = ask("--json")
    assert result.exit_code == EXIT_CODES["timeout"] == 4
    answer = json.loads(result.stdout)
    assert (answer["outcome"], answer["answer"], answer["fallback"]) == ("timeout", "", False)
    assert "no answer (timeout: the model did not answer within 1s)" in result.stderr
    assert len(server.requests) == 1
    assert MODEL_TIMEOUT - 0.2 < seconds < MODEL_TIMEOUT + 1.5
    assert server.client_gone.wait(5)


def test_a_slow_model_is_given_up_on_at_the_answer_timeout(
    serve: Callable[..., ModelServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCUCHAT_MODEL_TIMEOUT", "30")
    serve(lambda _body: Hang())
    result, seconds = ask("--json")
    assert result.exit_code == EXIT_CODES["timeout"]
    answer = json.loads(result.stdout)
    # Research until 3/4 of the answer timeout, a forced synthesis in the rest: no time is
    # left for the fallback.
    assert (answer["outcome"], answer["forced"], answer["fallback"]) == ("timeout", False, False)
    assert ANSWER_TIMEOUT - 0.2 < seconds < ANSWER_TIMEOUT + 1.5


def test_invalid_arguments_to_the_end_fall_back_to_the_pipeline(
    serve: Callable[..., ModelServer],
) -> None:
    """Invalid arguments until max_iterations, a forced synthesis that writes nothing (the
    model calls a tool it was not offered), then the pipeline's call answers."""
    untooled = itertools.count()

    def behaviour(body: dict[str, Any]) -> Behaviour:
        if "tools" in body or next(untooled) == 0:
            return CallTool("search_docs", '{"quer": 1}')
        return Answer(CITED)

    serve(behaviour)
    result, _ = ask("--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert (answer["mode"], answer["fallback"], answer["answer"]) == ("pipeline", True, CITED)
    assert answer["fallback_reason"] == "max_iterations: 5 iterations"


def test_a_limit_that_leaves_no_answer_even_after_the_fallback_exits_5(
    serve: Callable[..., ModelServer],
) -> None:
    serve(lambda _body: CallTool("search_docs", '{"quer": 1}'))
    result, _ = ask(question=UNMATCHED)
    assert result.exit_code == EXIT_CODES["limit"] == 5
    assert "no answer (max_iterations" in result.stderr
    assert "pipeline fallback used" in result.stdout


def test_a_bad_setting_exits_1_and_a_bad_command_line_2(monkeypatch: pytest.MonkeyPatch) -> None:
    assert run("ask", QUESTION, "--model", "nonsense:x").exit_code == 1
    assert run("ask").exit_code == 2
    monkeypatch.setenv("DOCUCHAT_MODEL_TIMEOUT", "0")
    bad = run("ask", QUESTION)
    assert bad.exit_code == 1
    assert (
        "environment variable DOCUCHAT_MODEL_TIMEOUT: Input should be greater than 0 (got '0')"
        in bad.stderr
    )
