"""``docuchat eval qa --set`` end to end: real ingestion, store, search and research agent;
a scripted model answers (the only double), so every figure is known in advance."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from docuchat.cli.main import cli
from docuchat.evals.business import evaluate_set
from docuchat.evals.business_set import attached_name, load_set
from docuchat.models.base import (
    Message,
    ModelRequest,
    ModelResponse,
    ToolResultsMessage,
    UserMessage,
)
from docuchat.models.scripted import ScriptedModel, call, calls, reply

from .tiny_business_set import (
    ACME_NOTICE,
    ACME_PAY,
    ACME_REGION,
    BRIGHT_PAY,
    SCHEDULE_ROW,
    write_email,
    write_set,
)

DECLINE = "The documents do not say."
_PLACEHOLDER = re.compile(r"\{([^}]*)\}")


def oracle(script: Mapping[str, str], seen: list[list[Message]] | None = None) -> ScriptedModel:
    """Searches with the question, opens every passage found, then answers with
    ``script[question]``, where each ``{sentence}`` becomes the sentence cited with the
    number of the opened passage that holds it. Records what each question's first request
    saw (its history) in ``seen``."""

    def respond(request: ModelRequest) -> ModelResponse:
        at = max(i for i, m in enumerate(request.messages) if isinstance(m, UserMessage))
        question = request.messages[at]
        assert isinstance(question, UserMessage)
        turn = request.messages[at + 1 :]
        if not turn and seen is not None:
            seen.append(list(request.messages[:at]))
        template = script[question.content]
        if "{" not in template:
            return reply(template)
        results = [r for m in turn if isinstance(m, ToolResultsMessage) for r in m.results]
        if not results:
            return call("search_docs", query=question.content)
        opened = [json.loads(r.content) for r in results if r.name == "open_citation"]
        if not opened:
            hits = json.loads(results[0].content)["hits"]
            opens = [{"docId": h["docId"], "chunkId": h["chunkId"]} for h in hits]
            return calls(*[("open_citation", arguments) for arguments in opens])

        def cite(match: re.Match[str]) -> str:
            number = next(p["citation"] for p in opened if match[1] in p["text"])
            return f"{match[1]} [{number}]"

        return reply(_PLACEHOLDER.sub(cite, template))

    return ScriptedModel(respond)


SCRIPT = {
    # right: the fact quoted from its own sentence
    "What are Acme's payment terms?": f"{{{ACME_PAY}}}",
    # right: both parts come from one passage, cited once
    "Where does the Acme service run, and what are its payment terms?": (
        f"{{{ACME_REGION}}} {{{ACME_PAY}}}"
    ),
    # wrong: Brightline's notice is stated but not cited (Acme's sentence quoted twice)
    "Compare the notice periods of Acme and Brightline.": (
        f"{{{ACME_NOTICE}}} Brightline asks for 60 days."
    ),
    # right: the follow-up, whose history is the first question and its answer
    "And Brightline's?": f"{{{BRIGHT_PAY}}}",
    # declined: right for an unanswerable question
    "What is Acme's bank account number?": DECLINE,
    # answered with a related fact, which the research agent finds does not address it:
    # shown as a related passage, not as an answer (as good as a decline)
    "What late-payment interest does Acme charge?": f"{{{ACME_PAY}}}",
}


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCUCHAT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DOCUCHAT_EMBEDDER", "none")


@pytest.fixture
def set_folder(tmp_path: Path) -> Path:
    return write_set(tmp_path / "set")


async def test_every_kind_is_scored_through_the_research_agent(set_folder: Path) -> None:
    seen: list[list[Message]] = []
    report = await evaluate_set(load_set(set_folder), oracle(SCRIPT, seen))
    outcomes = {
        r.question.id: (r.right, r.abstained, [(p.found, p.quoted, p.cited) for p in r.parts])
        for r in report.results
    }

    assert outcomes == {
        "t-fact": (True, False, [(True, True, True)]),
        "t-two": (True, False, [(True, True, True), (True, False, True)]),
        "t-cmp": (False, False, [(True, True, True), (True, False, False)]),
        "t-fu": (True, False, [(True, True, True)]),
        "t-un-bank": (True, True, []),
        "t-un-late": (True, False, []),
    }
    assert [r.question.id for r in report.results if r.related] == ["t-un-late"]
    scores = report.to_dict()
    assert scores["overall"] == {
        "n": 6,
        "right": 0.8333,
        "answered": 4,
        "related": 0.1667,
        "wrong_of_answered": 0.25,
        "wrong_of_all": 0.1667,
        "wrong_shown_as_partial": 0.1667,  # the comparison: one subject addressed of two
        "with_stray_quote": 0.0,
    }
    # shown as answering part of the question: the comparison, one subject's quote not
    # addressing it (the two-part answer's second quote is corroborated by its first)
    assert [r.question.id for r in report.results if r.partial] == ["t-cmp"]
    assert scores["unanswerable_by_category"]["near_miss"] == {
        "n": 1,
        "declined": 1.0,
        "related": 1.0,
    }
    assert report.index is not None and report.index.path is None  # a temporary store
    # The follow-up was asked as a conversation: its history, the first question's answer.
    history = seen[4]  # questions asked: fact, two, cmp, the follow-up's history, follow-up
    assert [type(m).__name__ for m in history] == ["UserMessage", "AssistantMessage"]
    assert history[0] == UserMessage("What are Acme's payment terms?")
    assert ACME_PAY in getattr(history[1], "text", "")
    assert all(not previous for previous in seen[:4])


def _run(*arguments: str) -> Result:
    return CliRunner().invoke(cli, ["eval", "qa", *arguments], catch_exceptions=False)


def test_cli_json_report_with_the_offline_model_and_a_cached_index(
    set_folder: Path, tmp_path: Path
) -> None:
    """The default model end to end: the report's shape and its consistency, not its
    figures (those are the model's, and change with it)."""
    first = _run("--set", str(set_folder), "--json")
    assert first.exit_code == 0, first.output
    scores: dict[str, Any] = json.loads(first.stdout)
    assert list(scores) == [
        "kinds",
        "unanswerable_by_category",
        "overall",
        "latency_ms",
        "questions",
    ]
    kinds = scores["kinds"]
    assert {k: v["n"] for k, v in kinds.items()} == {
        "fact": 1,
        "two_part": 1,
        "comparison": 1,
        "follow_up": 1,
        "unanswerable": 2,
    }
    assert list(kinds["fact"]) == [
        "n",
        "right",
        "found",
        "quoted",
        "cited",
        "declined",
        "wrong_as_answer",
        "wrong_shown_as_partial",
    ]
    per_question = {q["id"]: q for q in scores["questions"]}
    assert set(per_question) == {"t-fact", "t-two", "t-cmp", "t-fu", "t-un-bank", "t-un-late"}
    assert kinds["fact"]["right"] == float(per_question["t-fact"]["right"])
    declined = [
        per_question[i]["abstained"] or per_question[i]["related"]
        for i in ("t-un-bank", "t-un-late")
    ]
    assert kinds["unanswerable"]["declined"] == sum(declined) / 2
    assert 0 < scores["latency_ms"]["p50"] <= scores["latency_ms"]["p95"]
    assert "6 questions over 2 documents of" in first.stderr
    assert "indexed 2 documents and embedded 0 texts" in first.stderr

    second = _run("--set", str(set_folder), "--json", "--limit", "2")
    assert "reused the cached index" in second.stderr
    assert [q["id"] for q in json.loads(second.stdout)["questions"]] == ["t-fact", "t-two"]
    assert (tmp_path / "home" / "eval").is_dir()


def test_cli_table_names_every_row_and_figure(set_folder: Path) -> None:
    result = _run("--set", str(set_folder), "--limit", "1")
    assert result.exit_code == 0, result.output
    for label in ("fact", "two_part", "comparison", "follow_up", "unanswerable", "near_miss"):
        assert label in result.stdout
    for label in ("right", "found", "quoted", "cited", "declined", "wrong", "answered", "p50"):
        assert label in result.stdout
    assert "fact right ≥ 0.90" in result.stdout


@pytest.mark.parametrize("arguments", [(), ("--squad", "x.json", "--set", "dir")])
def test_cli_wants_exactly_one_of_squad_and_set(
    arguments: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.json").write_text("{}")
    (tmp_path / "dir").mkdir()
    result = CliRunner().invoke(cli, ["eval", "qa", *arguments])
    assert result.exit_code == 2
    assert "give either --squad FILE or --set DIR" in result.output


def test_cli_reports_a_faulty_set_with_its_line_and_runs_nothing(set_folder: Path) -> None:
    lines = (set_folder / "questions.jsonl").read_text().splitlines()
    lines[1] = lines[1].replace("Frankfurt.", "Paris.")
    (set_folder / "questions.jsonl").write_text("\n".join(lines))
    result = CliRunner().invoke(cli, ["eval", "qa", "--set", str(set_folder)])
    assert result.exit_code == 1
    assert "questions.jsonl:2: the quote 'The service runs in Paris.'" in result.output
    assert "Traceback" not in result.output


async def test_gold_evidence_in_an_e_mails_attachment_is_scored_as_the_attachment(
    tmp_path: Path,
) -> None:
    attached = attached_name("refit.eml", "schedule.csv")
    questions = [
        {
            "id": "m-fact",
            "kind": "fact",
            "question": "When does the LED lighting work start?",
            "parts": [
                {
                    "answers": ["2025-10-06"],
                    "evidence": [{"document": attached, "quote": SCHEDULE_ROW}],
                }
            ],
        }
    ]
    folder = write_set(tmp_path / "set", questions, documents={})
    write_email(folder / "documents" / "refit.eml")

    loaded = load_set(folder)
    [evidence] = loaded.questions[0].parts[0].evidence
    assert evidence.document == "refit.eml › schedule.csv"
    report = await evaluate_set(loaded, oracle({questions[0]["question"]: f"{{{SCHEDULE_ROW}}}"}))
    [result] = report.results
    assert result.right and [(p.found, p.quoted, p.cited) for p in result.parts] == [
        (True, True, True)
    ]
