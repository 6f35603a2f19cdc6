"""What a question asks for is read from its own noun, not from a verb or a clause after
it. Before, "Which IBAN should we pay…" asked for an amount of money (for "pay"), and "How
much of the fixed price…" for an amount, so a sentence that states the IBAN or gives the
share held no fact of the kind asked for and the question was declined."""

from __future__ import annotations

import pytest

from docuchat.research.offline import ABSTAIN

from .conftest import Ask

INVOICE = """# Invoice NF-2025-0612

Please pay the total due by 30 July 2025 by bank transfer to IBAN NL91 ABNA 0417 1643 00
(BIC ABNANL2A), in the name of Northgate Facilities B.V.
"""
ORDER = """# Charger purchase order

The fixed price is payable in three instalments: 30% with the purchase order, 50% when the
chargers are delivered to site, and 20% on commissioning.
"""


@pytest.fixture
def documents() -> dict[str, str]:
    return {"invoice.md": INVOICE, "order.md": ORDER}


@pytest.mark.parametrize(
    ("question", "fact"),
    [
        ("Which IBAN should we pay Northgate's invoice into?", "NL91 ABNA 0417 1643 00"),
        ("How much of the fixed price is paid when the chargers are delivered?", "50%"),
    ],
)
def test_the_noun_asked_for_decides_the_kind_not_a_verb_of_money(
    ask: Ask, question: str, fact: str
) -> None:
    answer = ask(question)
    assert answer.answer != ABSTAIN and fact in answer.answer
    assert answer.presentation == "answer"
