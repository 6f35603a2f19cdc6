"""Trust by the learned score: the offline model quotes what its gates choose, and the
research agent presents a quote as an answer only when the learned score finds it likely to
state the answer (``relevance.TRUST``); otherwise the quote is shown as a related passage,
not as an answer. Before, every quote the gates chose was presented as an answer."""

from __future__ import annotations

import pytest
from rich.console import Console

from docuchat.cli.live import print_answer
from docuchat.research.offline import PREFIX

from .conftest import Ask

CONTRACT = """# Cobalt Colocation Agreement

## Fees

The Monthly Fee is 18,400 dollars, covering the racks, power and cooling.
Remote hands beyond the included hours are charged at 165 dollars per hour.
The Monthly Fee includes 4 hours of remote hands per month; unused hours do not carry over.

## Power

Each rack is supplied with a power allocation of 6 kW.
"""
INCIDENT = """# Incident report

The service was unavailable for 2 hours and 47 minutes after rack B3 in our cage at the BNE-2 \
facility lost power during a generator test.
"""


@pytest.fixture
def documents() -> dict[str, str]:
    return {"colocation.md": CONTRACT, "incident.md": INCIDENT}


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        # A kind of fact no document states: the gates let the monthly fee through.
        ("How much does Cobalt charge per kWh of power?", "The Monthly Fee is 18,400 dollars"),
        # A near miss: the included hours, not the hourly rate asked for.
        (
            "What's the hourly rate for remote hands in business hours?",
            "includes 4 hours of remote hands",
        ),
    ],
)
def test_a_quote_the_score_finds_unlikely_to_answer_is_a_related_passage(
    ask: Ask, question: str, quoted: str
) -> None:
    answer = ask(question)
    assert answer.answer.startswith(PREFIX) and quoted in answer.answer  # still quoted
    [citation] = answer.citations
    assert citation.verified and answer.addresses(citation.n) is False
    assert answer.presentation == "not_an_answer"
    reasons = answer.to_dict(trace=False)["citations"][0]["relevance"]["reasons"]
    assert any(r.startswith("score ") and " < " in r for r in reasons)  # says why, in figures
    console = Console(record=True, width=200)
    print_answer(console, answer)
    assert "No answer: the passages found do not address the question. Related passages:" in (
        console.export_text()
    )


@pytest.mark.parametrize(
    ("question", "fact"),
    [
        ("What is the power allocation per rack?", "6 kW"),
        ("How many remote hands hours are included each month?", "4 hours"),
        ("How long was the service down?", "2 hours and 47 minutes"),
    ],
)
def test_a_plain_fact_is_still_presented_as_an_answer(ask: Ask, question: str, fact: str) -> None:
    answer = ask(question)
    assert fact in answer.answer and answer.presentation == "answer"
    assert all(answer.addresses(c.n) for c in answer.citations)
