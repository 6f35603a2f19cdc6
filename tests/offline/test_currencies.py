"""Amounts as other countries write them: a currency's code before or after the figure
("AUD 750", "4 500 NOK"), a sign after a country's letters ("NZ$"). Before, only £, $, €
and ¥ made an amount, so a question of money found no fact of its kind in these sentences
and was declined, or answered with a sentence that merely shared its words."""

from __future__ import annotations

import pytest

from docuchat.research.offline import ABSTAIN

from .conftest import Ask

HANDBOOK = """# Wallaby People Handbook

## Home office

From 1 July 2026 the setup allowance for new starters is AUD 750, claimed with receipts.
Staff choose their own desk and chair from the approved catalogue.

## Parental leave

A primary carer receives 16 weeks of paid parental leave.
"""
FERRY = """# Fjordline Fares 2026

## Cars

A car up to 6 metres costs NOK 1 450 each way on the Bergen route.
Bookings open in January and close two hours before departure.
"""


@pytest.fixture
def documents() -> dict[str, str]:
    return {"handbook.md": HANDBOOK, "fares.md": FERRY}


@pytest.mark.parametrize(
    ("question", "fact"),
    [
        ("How much is the home office setup allowance?", "AUD 750"),
        ("What does a car cost on the Bergen route?", "NOK 1 450"),
        # "paid" describes the leave: a quantity of it is asked for, not an amount of money
        ("How much paid parental leave does a primary carer get?", "16 weeks"),
    ],
)
def test_an_amount_in_a_currency_s_code_answers_a_question_of_money(
    ask: Ask, question: str, fact: str
) -> None:
    answer = ask(question)
    assert answer.answer != ABSTAIN and fact in answer.answer
    assert answer.presentation == "answer"
