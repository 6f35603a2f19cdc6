"""``docuchat ask``: the JSON says why it answered or declined, the terminal shows whether each
citation addresses the question, and an answer whose verified citations do not is shown as
related passages, not as an answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from rich.console import Console

from docuchat.cli.live import print_answer
from docuchat.cli.main import cli
from docuchat.models import ScriptedModel
from docuchat.models.base import ModelRequest, ModelResponse, ToolResultsMessage
from docuchat.models.scripted import call, calls, reply
from docuchat.research import ResearchAgent, SearchResults
from docuchat.search.hybrid import HybridSearcher
from docuchat.store import open_store

from .test_answering import ACME


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCUCHAT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DOCUCHAT_EMBEDDER", "none")
    for name in ("DOCUCHAT_DB", "DOCUCHAT_OWNER"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def db(tmp_path: Path) -> str:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "acme.md").write_text(ACME, encoding="utf-8")
    path = str(tmp_path / "cli.db")
    assert run("ingest", str(folder), "--db", path).exit_code == 0
    return path


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_ask_json_says_which_sentence_answers_and_which_signals_it_shows(db: str) -> None:
    result = run("ask", "What are Acme's payment terms?", "--db", db, "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["presentation"] == "answer"
    [citation] = found["citations"]
    assert citation["quote"] == "Payment terms are 30 days from the invoice date."
    assert citation["verified"] is True and citation["addresses"] is True
    assert citation["relevance"]["answer"] == "30 days"  # the duration asked for
    assert citation["relevance"]["missing_names"] == []
    [part] = found["relevance"]["parts"]
    assert (part["kind"], part["addressed_by"]) == ("duration", [citation["n"]])


def test_ask_json_says_why_it_declined(db: str) -> None:
    found = json.loads(
        run("ask", "What is Acme's bank account number?", "--db", db, "--json").stdout
    )
    assert found["answer"] == "The documents do not say." and found["presentation"] == "declined"
    [part] = found["relevance"]["parts"]
    assert part["kind"] == "identifier" and part["addressed_by"] == []
    assert "does not mention account number" in part["nearest"]["why_not"]
    assert "Priya Natarajan" in part["nearest"]["sentence"]


def test_the_terminal_shows_that_a_citation_addresses_the_question(db: str) -> None:
    result = run("ask", "What are Acme's payment terms?", "--db", db)
    assert result.exit_code == 0, result.output
    assert "verified · addresses the question" in result.stdout


def test_verified_quotes_off_the_question_are_printed_as_related_passages(
    db: str,
) -> None:
    def open_first(request: ModelRequest) -> ModelResponse:
        message = request.messages[-1]
        assert isinstance(message, ToolResultsMessage)
        found = message.results[0].value
        assert isinstance(found, SearchResults)
        hit = found.hits[0]
        return calls(("open_citation", {"docId": hit.doc_id, "chunkId": hit.chunk_id}))

    model = ScriptedModel(
        [
            call("search_docs", query="Acme fee"),
            open_first,
            reply("The annual hosting fee is £184,000, invoiced quarterly in advance [1]."),
        ]
    )
    store = open_store(db)
    try:
        agent = ResearchAgent(HybridSearcher(store), model, owner="local")
        answer = agent.ask_sync("What is Acme's bank account number?")
    finally:
        store.close()
    assert answer.presentation == "not_an_answer"
    console = Console(record=True, width=200)
    print_answer(console, answer)
    printed = console.export_text()
    assert "No answer: the passages found do not address the question. Related passages:" in (
        printed
    )
    assert "verified · does not address the question (does not mention account number" in printed
