"""The offline model answers what the documents say and declines what they do not (issue 10):
plain facts, two-part questions, comparisons, follow-ups, and the kinds of fact no document
holds; every answer says which sentence answers which part, and why."""

from __future__ import annotations

import re
from typing import Any

import pytest

from docuchat.models.base import AssistantMessage, UserMessage
from docuchat.research import Answer
from docuchat.research.offline import ABSTAIN, PREFIX

from .conftest import Ask

ACME = """# Acme Hosting Contract

## Fees and payment

The annual hosting fee is £184,000, invoiced quarterly in advance. Payment terms are 30 days \
from the invoice date.

## Termination

Either party may terminate for convenience by giving at least 90 days' written notice.

## Contacts

| Role | Name | E-mail |
|---|---|---|
| Account manager | Priya Natarajan | priya.natarajan@example.com |
| Service lead | Owen Grady | owen.grady@example.com |

## Hosting

Our data is hosted in Acme's Frankfurt region, with backups held in Dublin.
"""
BRIGHTLINE = """# Brightline Subscription Agreement

## Payment

Invoices are payable within 45 days of receipt.

## Termination

Either party may terminate this agreement by giving 60 days' written notice.

## Data

Our data is hosted in the Ireland region. Brightline has offices at 350 Hudson Street, \
New York.

## Contacts

Our customer success manager at Brightline is Aisha Rahman.
"""
CORVID = """# Corvid Warehouse Proposal

## Hosting

Corvid Flow would host our data in the London region, with a standby copy elsewhere.

## Plan

The implementation takes 26 weeks from contract signature.
"""


@pytest.fixture
def documents() -> dict[str, str]:
    return {"acme.md": ACME, "brightline.md": BRIGHTLINE, "corvid.md": CORVID}


def quotes(answer: Answer) -> list[str]:
    """The quotes that cite a passage."""
    return re.findall(r"“([^”]*)” \[\d+\]", answer.answer)


def searches(answer: Answer) -> list[str]:
    return [
        str(e.input["query"])
        for e in answer.run.events
        if e.type == "tool_call_finished" and e.name == "search_docs"
    ]


def addressing(answer: Answer) -> list[bool | None]:
    return [answer.addresses(c.n) for c in answer.citations]


def test_a_fact_stated_in_one_sentence_is_answered_with_that_sentence_alone(ask: Ask) -> None:
    answer = ask("What are Acme's payment terms?")
    assert answer.answer.startswith(PREFIX)
    # One quote: the other sentences read (the fee, the notice) do not bear on the question.
    assert quotes(answer) == ["Payment terms are 30 days from the invoice date."]
    assert answer.verified_count == 1 and addressing(answer) == [True]
    assert answer.presentation == "answer"


def test_a_person_named_in_a_table_row_is_answered_with_the_row(ask: Ask) -> None:
    answer = ask("Who is our account manager at Acme?")
    assert "Account manager | Priya Natarajan | priya.natarajan@example.com" in quotes(answer)[0]
    assert "Owen Grady" not in answer.answer
    assert addressing(answer)[0] is True


@pytest.mark.parametrize(
    "question",
    [
        "What is Acme's bank account number?",  # an account manager, no account number
        "How many employees does Brightline have?",  # an address with numbers, no headcount
        "Who is Acme's chief executive?",  # names of other roles
        "What is Corvid's hourly rate for extra training?",  # no rate, no training
    ],
)
def test_a_kind_of_fact_no_document_holds_is_declined(ask: Ask, question: str) -> None:
    answer = ask(question)
    assert answer.answer == ABSTAIN and answer.citations == ()
    assert answer.presentation == "declined"


def test_a_decline_says_which_sentence_came_nearest_and_why_it_does_not_answer(ask: Ask) -> None:
    answer = ask("What is Acme's bank account number?")
    assert answer.relevance is not None and not answer.relevance.addresses
    [part] = answer.to_dict()["relevance"]["parts"]
    assert part["kind"] == "identifier" and part["addressed_by"] == []
    assert "does not mention account number" in part["nearest"]["why_not"]


def test_a_two_part_question_gets_a_sentence_for_each_part(ask: Ask) -> None:
    answer = ask(
        "Where is our data hosted by Brightline, and who is our customer success manager there?"
    )
    said = quotes(answer)
    assert any("Ireland region" in q for q in said) and any("Aisha Rahman" in q for q in said)
    assert len(said) == 2  # a sentence per part, nothing else
    assert answer.relevance is not None and answer.relevance.addressed_parts == 2
    assert answer.presentation == "answer"


def test_a_part_the_documents_do_not_answer_is_said_to_be_unanswered(ask: Ask) -> None:
    answer = ask("What are Acme's payment terms, and what is its bank account number?")
    assert quotes(answer) == ["Payment terms are 30 days from the invoice date."]
    assert "The documents do not answer: “what is its bank account number?”" in answer.answer
    assert answer.presentation == "partial"


def test_a_comparison_searches_each_subject_and_quotes_one_sentence_per_subject(
    ask: Ask,
) -> None:
    answer = ask("Compare the termination notice periods of Acme and Brightline.")
    assert sorted(searches(answer)) == [  # made at once: they finish in any order
        "acme termination notice periods",
        "brightline termination notice periods",
    ]
    acme, brightline = answer.answer.removeprefix(PREFIX).split("\n\n")
    assert acme.startswith("Acme: “") and "90 days' written notice" in acme
    assert brightline.startswith("Brightline: “") and "60 days' written notice" in brightline
    assert answer.verified_count == 2 and addressing(answer) == [True, True]


def test_a_comparison_of_three_subjects_may_make_six_tool_calls(ask: Ask) -> None:
    answer = ask("Where do Acme, Brightline and Corvid each host our data?")
    assert answer.outcome == "answered" and not answer.forced
    assert len(searches(answer)) == 3 and answer.run.usage.tool_calls == 6
    for place in ("Frankfurt", "Ireland", "London"):
        assert place in answer.answer
    assert answer.relevance is not None and answer.relevance.addressed_parts == 3


def test_a_follow_up_that_names_another_subject_asks_the_previous_question_of_it(
    ask: Ask,
) -> None:
    first = ask("What are Acme's payment terms?")
    history: list[Any] = [UserMessage(first.question), AssistantMessage(first.answer)]
    answer = ask("And Brightline's?", history=history)
    assert searches(answer)[0] == "brightline payment terms"  # key words: BM25 alone
    assert quotes(answer) == ["Invoices are payable within 45 days of receipt."]
    assert addressing(answer) == [True]
