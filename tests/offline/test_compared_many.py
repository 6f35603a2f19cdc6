"""Comparisons of three or more subjects as people write them: a chain of "vs", a list with a
superlative ("which… the longest… A, B or C?"), and phrases that end at the question's end."""

from __future__ import annotations

import pytest

from docuchat.research.kinds import expected_kind
from docuchat.research.questions import analyse

from .conftest import Ask

ACME = """# Acme Hosting Agreement

## Payment

Acme hosts our data in Dublin. Invoices are payable within 30 days of receipt.
"""
BRIGHTLINE = """# Brightline Subscription Agreement

## Payment

Brightline hosts our data in Leeds. Invoices are payable within 45 days of receipt.
"""
CORVID = """# Corvid Services Agreement

## Payment

Corvid's account manager is Dana Whitlock. Invoices are payable within 60 days of receipt.
"""


@pytest.fixture
def documents() -> dict[str, str]:
    return {"acme.md": ACME, "brightline.md": BRIGHTLINE, "corvid.md": CORVID}


def test_a_chain_of_vs_names_every_subject() -> None:
    asked = analyse("Payment terms: Acme vs Brightline vs Harlowe & Diep?")
    assert [p.subject for p in asked.parts] == ["Acme", "Brightline", "Harlowe & Diep"]


def test_a_superlative_asks_each_subject_for_the_fact_it_compares() -> None:
    asked = analyse(
        "Which supplier gives us the longest to pay an invoice: Acme, Brightline or Corvid?"
    )
    assert [(p.subject, p.kind) for p in asked.parts] == [
        ("Acme", "duration"),
        ("Brightline", "duration"),
        ("Corvid", "duration"),
    ]


@pytest.mark.parametrize(
    "question", ["What was the longest war?", "What is the highest mountain in Wales?"]
)
def test_a_superlative_of_no_comparison_asks_for_no_figure(question: str) -> None:
    assert expected_kind(question) not in ("duration", "quantity")


def test_a_phrase_subject_ends_before_the_full_stop() -> None:
    asked = analyse(
        "Compare the availability of Acme's servers, Brightline's vehicles and Corvid's chargers."
    )
    assert all(not p.subject.endswith(".") for p in asked.parts)


def test_each_of_three_subjects_is_quoted_for_its_own_duration(ask: Ask) -> None:
    answer = ask(
        "Which supplier gives us the longest to pay an invoice: Acme, Brightline or Corvid?"
    )
    assert not answer.abstained
    for days in ("30 days", "45 days", "60 days"):
        assert days in answer.answer
    assert "Dana Whitlock" not in answer.answer
