"""A near miss is declined: a question the documents answer of another subject (asked of
Brightline, Acme's contract states it) is not answered with a sentence of the subject's own
document that only comes close."""

from __future__ import annotations

import pytest

from docuchat.research.offline import ABSTAIN, PREFIX

from .conftest import Ask

ACME = """# Acme Hosting Contract

## Fees and payment

The annual hosting fee is £184,000. Acme charges interest of £40 a month on late payments.
"""
BRIGHTLINE = """# Brightline Subscription Agreement

## Fees

The annual fee of £96,500 is payable in advance.

## Data

Customer data is hosted in the Ireland region.
"""


@pytest.fixture
def documents() -> dict[str, str]:
    return {"acme.md": ACME, "brightline.md": BRIGHTLINE}


def test_a_question_another_document_answers_of_another_subject_is_declined(ask: Ask) -> None:
    answer = ask("What late-payment interest does Brightline charge?")
    assert answer.answer == ABSTAIN and answer.presentation == "declined"
    assert answer.relevance is not None
    [part] = answer.to_dict()["relevance"]["parts"]
    nearest = part["nearest"]
    assert (
        "late payments" in nearest["sentence"] and "does not name brightlin" in nearest["why_not"]
    )


def test_the_same_question_of_the_subject_that_document_names_is_answered(ask: Ask) -> None:
    answer = ask("What late-payment interest does Acme charge?")
    assert answer.answer.startswith(PREFIX) and "£40 a month" in answer.answer
    assert answer.presentation == "answer"
