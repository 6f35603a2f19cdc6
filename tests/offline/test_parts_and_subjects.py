"""Which sentence answers each part or subject of a question: the one that holds the part's
terms itself, the fact a comparison compares, every subject named together, a code's digits
no figure to find, and each passage opened once."""

from __future__ import annotations

import re

import pytest

from docuchat.research.offline import PREFIX
from docuchat.research.offline.planning import Budget, plan
from docuchat.research.offline.transcript import OPEN, Hit, Turn
from docuchat.research.questions import analyse

from .conftest import Ask

ACME = """# Acme Hosting Agreement

## Support

Critical incidents are handled by Acme's duty manager, Owen Grady. Acme responds to \
critical incidents within 15 minutes.

## Term

The Acme agreement took effect on 1 March 2024.
"""
BRIGHTLINE = """# Brightline Subscription Agreement

## Fees

Brightline may increase its fees by up to 5% per year by giving at least 90 days' written \
notice before the renewal date. Invoices are payable within 45 days of receipt.

## Term

The Brightline agreement took effect on 15 July 2024.
"""
CORVID = """# Corvid Proposal

## Support

Corvid responds to critical incidents within 30 minutes.
"""
REPORT = """# Quarterly Report Q2 2025

## Channels

Online sales grew 17% to £14.0 million.
"""


@pytest.fixture
def documents() -> dict[str, str]:
    return {"acme.md": ACME, "brightline.md": BRIGHTLINE, "corvid.md": CORVID, "q2.md": REPORT}


def quotes(text: str) -> list[str]:
    return re.findall(r"“([^”]*)” \[\d+\]", text)


def test_of_the_sentences_that_address_a_part_the_one_holding_its_terms_is_chosen(
    ask: Ask,
) -> None:
    # Both state a duration under Brightline's title; the fee notice ranks first (longer,
    # naming Brightline itself), but only the invoices' sentence is about payment.
    answer = ask("What are Brightline's payment terms?")
    assert quotes(answer.answer)[0] == "Invoices are payable within 45 days of receipt."


def test_who_in_a_comparison_asks_for_the_fact_its_comparative_compares(ask: Ask) -> None:
    answer = ask("Who responds faster to critical incidents, Corvid or Acme?")
    corvid, acme = answer.answer.removeprefix(PREFIX).split("\n\n")
    assert corvid.startswith("Corvid: “") and "30 minutes" in corvid
    # Not the sentence that names a person: "faster" compares durations.
    assert acme.startswith("Acme: “") and "15 minutes" in acme and "Owen Grady" not in acme
    assert answer.relevance is not None and answer.relevance.addressed_parts == 2


def test_subjects_named_together_are_answered_each_when_no_sentence_names_them_all(
    ask: Ask,
) -> None:
    answer = ask("When did the Acme and Brightline agreements take effect?")
    acme, brightline = answer.answer.removeprefix(PREFIX).split("\n\n")
    assert acme.startswith("Acme: “") and "1 March 2024" in acme
    assert brightline.startswith("Brightline: “") and "15 July 2024" in brightline
    assert answer.presentation == "answer"


def test_subjects_named_together_are_one_part_when_asked_as_one_and_a_part_each_else() -> None:
    asked = analyse("When did the Acme and Brightline agreements take effect?")
    assert asked.subjects == ("Acme", "Brightline")
    assert [p.text for p in asked.parts] == [
        "When did Acme agreements take effect?",
        "When did Brightline agreements take effect?",
    ]
    together = asked.as_one()
    assert together is not None and len(together.parts) == 1 and not together.comparison
    assert {("acm",), ("brightlin",)} <= set(together.parts[0].named)
    # A comparing word asks for each subject apart, and a clause of its own for a second part.
    assert analyse("Compare the fees of Acme and Brightline.").as_one() is None
    two = analyse("Who chaired the meeting, and who sent Acme and Brightline apologies?")
    assert len(two.parts) == 2 and not two.subjects


def test_a_code_s_digits_are_no_figure_the_answer_must_state(ask: Ask) -> None:
    assert analyse("What were online sales in Q2 2025?").parts[0].figures == frozenset()
    answer = ask("What were online sales in Q2 2025?")
    assert quotes(answer.answer) == ["Online sales grew 17% to £14.0 million."]


def test_a_comparison_opens_a_passage_two_subjects_searches_found_once() -> None:
    asked = analyse("Compare the fees of Acme and Brightline.")
    shared = Hit("d1", "c1", "Acme and Brightline fees", "Fees")
    turn = Turn(
        question=asked.text,
        queries=["acme fees", "brightline fees"],
        searches=[
            [shared],
            [Hit("d1", "c1", "Brightline and Acme fees", "Fees"), Hit("d2", "c2", "Brightline")],
        ],
        tool_calls=2,
        steps=1,
    )
    opened = [args["chunkId"] for name, args in plan(turn, asked, Budget(6, 5)) if name == OPEN]
    assert opened == ["c1", "c2"]
