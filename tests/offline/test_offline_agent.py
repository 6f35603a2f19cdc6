"""The offline model through the real runtime, the real research tools and a real SQLite store."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from docuchat.agent import Limits
from docuchat.models.base import AssistantMessage, UserMessage
from docuchat.research import Answer
from docuchat.research.models import research_model
from docuchat.research.offline import ABSTAIN, PREFIX, OfflineModel
from docuchat.research.prompts import PIPELINE_PROMPT
from docuchat.research.relevance import Thresholds

from .conftest import Ask


def calls(answer: Answer) -> list[tuple[str, dict[str, Any]]]:
    return [(e.name, dict(e.input)) for e in answer.run.events if e.type == "tool_call_finished"]


def test_answer_quotes_the_passage_verbatim_with_a_verified_citation(
    ask: Ask, document_text: Callable[[str], str]
) -> None:
    answer = ask("Who designed the Larkspur Bridge?")

    assert answer.outcome == "answered" and answer.mode == "agent"
    assert not answer.fallback and not answer.forced
    assert answer.answer.startswith(PREFIX)  # it says that it is extractive
    assert "Mara Quinn" in answer.answer
    assert answer.verified_count == len(answer.citations) == 1
    assert not answer.unsupported_claims and not answer.removed_citations
    citation = answer.citations[0]
    assert citation.title == "The Larkspur Bridge"
    assert f"“{citation.quote}” [{citation.n}]" in answer.answer
    assert document_text(citation.doc_id)[citation.start : citation.end] == citation.quote
    made = calls(answer)
    assert made[0] == ("search_docs", {"query": "designed larkspur bridge"})
    assert made[1][0] == "open_citation" and made[1][1]["chunkId"] == citation.chunk_id


@pytest.mark.parametrize(
    "question",
    [
        "What is the capital of Peru?",  # nothing about it
        "What was strengthened in 2016?",  # the documents say 2015
        "What is the least popular product of the bakery?",  # they name the most popular
        "Who did not design the Larkspur Bridge?",  # they say who did
    ],
)
def test_abstains_when_the_documents_do_not_hold_the_answer(ask: Ask, question: str) -> None:
    answer = ask(question)
    assert answer.outcome == "answered" and not answer.fallback
    assert answer.answer == ABSTAIN
    assert answer.citations == () and answer.verified_count == 0


def test_the_thresholds_decide_how_much_of_the_question_a_sentence_must_carry(ask: Ask) -> None:
    # The bakery's sentences name the bakery, and none of the rest.
    question = "Which sourdough loaves does the bakery bake for weekend markets?"
    assert ask(question).answer == ABSTAIN
    # BM25 alone here (no embedder): ``words_only`` decides.
    lenient = ask(question, model=OfflineModel(thresholds=Thresholds(words_only=0.15)))
    assert "rye bread" in lenient.answer and lenient.verified_count == 1


def test_a_list_s_introduction_is_quoted_with_the_item_asked_about(ask: Ask) -> None:
    answer = ask("What is the hotel limit per night in Lisbon?")
    assert "within these limits per night" in answer.answer
    assert "“Lisbon | €130…”" in answer.answer and "London" not in answer.answer
    assert answer.verified_count == 1


def test_a_search_that_found_nothing_is_refined_with_other_words(
    ask: Ask,
) -> None:
    answer = ask("What is the zorblax frobnication?")
    assert calls(answer) == [
        ("search_docs", {"query": "zorblax frobnication"}),
        ("search_docs", {"query": "What is the zorblax frobnication?"}),
    ]
    assert answer.answer == ABSTAIN


def test_a_search_that_misses_the_question_s_number_is_refined_with_it(
    ask: Ask,
) -> None:
    answer = ask("What was strengthened in 2016?")
    queries = [c[1]["query"] for c in calls(answer) if c[0] == "search_docs"]
    assert queries == ["strengthened 2016", "2016"]


@pytest.mark.parametrize(
    "question",
    [
        "Who designed the Larkspur Bridge?",
        "When was Holloway Bakery founded?",
        "What is the zorblax frobnication?",
        "What was strengthened in 2016?",
        "How many varieties of apple grow in the walled garden and who planted the orchard?",
    ],
)
def test_stays_within_five_calls_and_iterations_and_never_repeats_a_call(
    ask: Ask, question: str
) -> None:
    answer = ask(question)
    made = calls(answer)
    assert answer.outcome == "answered"
    assert 1 <= answer.run.usage.tool_calls <= 5 and len(answer.run.usage.model_calls) <= 5
    assert len({(name, tuple(sorted(args.items()))) for name, args in made}) == len(made)
    assert not any(e.type == "tool_call_finished" and e.repeated for e in answer.run.events)


def test_a_smaller_budget_is_kept(ask: Ask) -> None:
    answer = ask("When was Holloway Bakery founded?", model=OfflineModel(max_tool_calls=2))
    assert [name for name, _ in calls(answer)] == ["search_docs", "open_citation"]
    assert "1921" in answer.answer and answer.verified_count == 1


def test_a_limit_forces_a_synthesis_without_tools_that_quotes_what_was_read(ask: Ask) -> None:
    limits = Limits(max_tool_calls=2, on_max_tool_calls="synthesize", timeout=30)
    # The plan is one search, then opening the three best passages: the second open is over
    # the limit, so the runtime asks for an answer without tools.
    answer = ask("In which year was the orchard of the walled garden planted?", limits=limits)

    assert answer.forced and answer.outcome == "max_tool_calls" and not answer.fallback
    assert answer.run.usage.model_calls[-1].purpose == "synthesis"
    assert "1984" in answer.answer and answer.verified_count == 1


def test_pipeline_mode_answers_from_the_passages_it_was_given(ask: Ask) -> None:
    answer = ask("How many people does the bakery employ?", mode="pipeline")
    assert answer.mode == "pipeline" and answer.outcome == "answered"
    prompt = answer.messages[-2]
    assert isinstance(prompt, UserMessage) and prompt.content == PIPELINE_PROMPT
    assert "twelve people" in answer.answer and answer.verified_count >= 1


def test_a_follow_up_borrows_the_previous_question_s_terms(ask: Ask) -> None:
    first = ask("Who designed the Larkspur Bridge?")
    history = [UserMessage(first.question), AssistantMessage(first.answer)]

    answer = ask("When did it open?", history=history)

    query = calls(answer)[0][1]["query"]
    assert query.startswith("open") and "larkspur" in query and "bridge" in query
    assert "1998" in answer.answer and answer.verified_count >= 1


def test_questions_that_ask_for_more_get_more_than_two_sentences(ask: Ask) -> None:
    short = ask("What does Holloway Bakery bake?")
    longer = ask("Summarise what the documents say about Holloway Bakery.")
    assert short.answer.count("“") <= 2
    assert longer.answer.count("“") > 2 and longer.verified_count >= 1


def test_usage_is_the_runtime_s_estimate_of_each_request(ask: Ask) -> None:
    answer = ask("Who designed the Larkspur Bridge?")
    estimates = [e.estimated_input_tokens for e in answer.run.events if e.type == "model_request"]
    reported = [c.input_tokens for c in answer.run.usage.model_calls]
    assert len(reported) == len(estimates) == 3 and all(n > 0 for n in reported)
    # The runtime sums per-message estimates; the model estimates the whole request.
    assert all(abs(r - e) <= 2 for r, e in zip(reported, estimates, strict=True))
    assert all(c.reported and c.output_tokens > 0 for c in answer.run.usage.model_calls)


def test_research_model_offline_is_this_model() -> None:
    model = research_model("offline")
    assert isinstance(model, OfflineModel) and model.name == "offline"
