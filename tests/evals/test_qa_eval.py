"""``docuchat eval qa`` end to end on a tiny SQuAD 2.0 file, with hand-checked scores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from docuchat.cli.main import cli
from docuchat.evals.qa import contains_answer, normalize_answer, token_f1


def _qa(qid: str, question: str, *answers: str) -> dict[str, Any]:
    gold = [{"text": a, "answer_start": 0} for a in answers]
    return {"id": qid, "question": question, "answers": gold, "is_impossible": not answers}


SQUAD = {
    "version": "v2.0",
    "data": [
        {
            "title": "Larkspur_Bridge",
            "paragraphs": [
                {
                    "context": "The Larkspur Bridge was designed by the engineer Mara Quinn. "
                    "It carries two lanes of traffic across the Tamsin River.",
                    "qas": [
                        _qa(
                            "a1",
                            "Who designed the Larkspur Bridge?",
                            "Mara Quinn",
                            "the engineer Mara Quinn",
                        ),
                        _qa("u1", "Who designed the Brackley Bridge?"),
                    ],
                },
                {
                    "context": "The bridge opened to traffic in 1998. "
                    "Its deck was strengthened in 2015 so that buses could cross.",
                    "qas": [
                        _qa("a2", "When did the bridge open to traffic?", "1998"),
                        _qa("u2", "Why was the deck strengthened at night?"),
                    ],
                },
            ],
        },
        {
            "title": "Holloway_Bakery",
            "paragraphs": [
                {
                    "context": "Holloway Bakery was founded by Edith Holloway in the village of "
                    "Brackley. The bakery is known for its rye bread.",
                    "qas": [_qa("a3", "What is the bakery known for?", "rye bread")],
                },
                {
                    "context": "Today the shop is run by Rosa, a granddaughter of its founder.",
                    "qas": [_qa("a4", "Who runs Holloway Bakery today?", "Rosa")],
                },
            ],
        },
    ],
}
# What the offline model answers, worked out by hand (normalised tokens, articles dropped):
# a1 quotes "The Larkspur Bridge was designed by the engineer Mara Quinn." [1]: 11 tokens with
#    the 3-word prefix, 14 words; best gold "the engineer Mara Quinn" (3 tokens): F1 = 6/14.
# a2 quotes "The bridge opened to traffic in 1998." [1]: 9 tokens, 11 words; F1 = 2/10.
# a3 quotes "The bakery is known for its rye bread." [1]: 10 tokens, 12 words; F1 = 4/12.
# a4 quotes "Today the shop is run by Rosa, a granddaughter of its founder." [1] alone (the
#    founding sentence names no one who runs the shop today, so it is no second source):
#    13 tokens, 16 words; F1 = 2/14.
# u1 abstains (Brackley is not in the bridge's text); u2 does not (it quotes the deck
#    sentence: it holds two of u2's three terms, and says why, "so that"), but the research
#    agent does not present it as an answer: the learned score (words alone) finds it
#    unlikely to answer u2, so it is shown as a related passage. Every answerable
#    question's quote is presented as an answer.
EXPECTED_F1 = (6 / 14 + 2 / 10 + 4 / 12 + 2 / 14) / 4


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A home of its own (the cached index goes there), and BM25 alone unless a test says
    otherwise: the default embedder (auto) would compute real embeddings."""
    monkeypatch.setenv("DOCUCHAT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("DOCUCHAT_EMBEDDER", "none")


@pytest.fixture
def squad_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny-squad.json"
    path.write_text(json.dumps(SQUAD), encoding="utf-8")
    return path


def run_eval(*arguments: str) -> Result:
    return CliRunner().invoke(cli, ["eval", "qa", *arguments], catch_exceptions=False)


def report(result: Result) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    parsed: dict[str, Any] = json.loads(result.stdout)
    return parsed


def test_json_report_has_the_issue_shape_and_hand_checked_scores(squad_file: Path) -> None:
    scores = report(run_eval("--squad", str(squad_file), "--json"))

    assert list(scores) == ["answerable", "unanswerable", "per_question", "latency_ms"]
    answerable = scores["answerable"]
    assert list(answerable) == [
        "n",
        "answer_match",
        "citation_match",
        "presented",
        "citation_match_presented",
        "f1",
        "answer_words",
    ]
    assert answerable["n"] == 4
    assert answerable["answer_match"] == 1.0
    assert answerable["citation_match"] == 1.0
    assert answerable["f1"] == pytest.approx(EXPECTED_F1, abs=1e-4)
    assert answerable["answer_words"] == (14 + 11 + 12 + 16) / 4
    assert scores["unanswerable"] == {"n": 2, "abstained": 0.5, "presented": 0.0}
    assert answerable["presented"] == answerable["citation_match_presented"] == 1.0
    per_question = scores["per_question"]
    assert list(per_question) == ["tool_calls", "model_calls", "prompt_tokens", "answer_words"]
    assert per_question["answer_words"] == pytest.approx((14 + 5 + 11 + 15 + 12 + 16) / 6, abs=1e-4)
    # One search and one open each; u1 searches again for the name it did not find.
    assert per_question["tool_calls"] == pytest.approx(13 / 6, abs=1e-4)
    assert per_question["model_calls"] == 3.0
    assert per_question["prompt_tokens"] > 1000
    latency = scores["latency_ms"]
    assert list(latency) == ["p50", "p95"] and 0 < latency["p50"] <= latency["p95"]


def test_limit_asks_only_the_first_questions(squad_file: Path) -> None:
    scores = report(run_eval("--squad", str(squad_file), "--limit", "2", "--json"))
    assert scores["answerable"]["n"] == 1 and scores["unanswerable"]["n"] == 1
    assert scores["answerable"]["answer_match"] == 1.0
    assert scores["unanswerable"]["abstained"] == 1.0


def test_table_output_names_every_figure(squad_file: Path) -> None:
    result = run_eval("--squad", str(squad_file), "--limit", "1")
    assert result.exit_code == 0, result.output
    for label in ("answer_match", "citation_match", "F1", "abstained", "tool calls", "p50"):
        assert label in result.stdout
    assert "1 questions over 2 articles, model offline, embedder none" in result.stdout


def test_default_embedder_comes_from_settings_and_the_index_is_reused(
    squad_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCUCHAT_EMBEDDER", "hash")
    first = run_eval("--squad", str(squad_file), "--json")
    index = tmp_path / "home" / "eval"
    assert "embedder hash-256" in first.stderr
    assert "indexed 2 articles and embedded 2 texts" in first.stderr
    assert str(index) in first.stderr.replace("\n", "")

    second = run_eval("--squad", str(squad_file), "--json")

    assert "reused the cached index and embeddings" in second.stderr
    assert report(second)["answerable"] == report(first)["answerable"]


def test_an_edited_file_gets_an_index_of_its_own(squad_file: Path, tmp_path: Path) -> None:
    run_eval("--squad", str(squad_file), "--json")
    edited = json.loads(squad_file.read_text(encoding="utf-8"))
    edited["data"][1]["paragraphs"][1]["context"] = "Today the shop is run by Rosa alone."
    squad_file.write_text(json.dumps(edited), encoding="utf-8")

    second = run_eval("--squad", str(squad_file), "--json")

    assert "indexed 2 articles" in second.stderr
    assert len(list((tmp_path / "home" / "eval").iterdir())) == 2


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "is not a SQuAD 2.0 file"),
        (json.dumps({"version": "v2.0"}), "is not a SQuAD 2.0 file"),
        (json.dumps({"data": [{"title": "x", "paragraphs": []}]}), "no questions"),
    ],
)
def test_a_file_that_is_not_squad_is_a_clear_error(
    tmp_path: Path, content: str, problem: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    result = CliRunner().invoke(cli, ["eval", "qa", "--squad", str(path), "--json"])
    assert result.exit_code == 1
    assert problem in result.output and not result.stdout.strip().startswith("{")


def test_unknown_model_spec_is_a_clear_error(squad_file: Path) -> None:
    result = CliRunner().invoke(cli, ["eval", "qa", "--squad", str(squad_file), "--model", "x"])
    assert result.exit_code == 1 and "unknown model spec" in result.output


def test_squad_normalisation_and_token_f1() -> None:
    assert normalize_answer("The  Cat's, hat!") == "cats hat"
    assert normalize_answer("“An apple” — a fruit.") == "apple fruit"
    assert token_f1("the cat sat", "a cat sat down") == pytest.approx(0.8)
    assert token_f1("dog", "cat") == 0.0
    assert token_f1("", "") == 1.0 and token_f1("", "cat") == 0.0
    assert contains_answer("Quoted: “… into Tijuana.” [3]", "Tijuana")
    assert contains_answer("the Mexico–United States border", "Mexico–United States border")
    assert not contains_answer("the start of it", "art")
    assert not contains_answer("anything", "the")
