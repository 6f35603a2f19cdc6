"""Comparisons whose subjects are phrases, not capitalised names ("the LED track spotlight
or the emergency exit sign", "primary carer versus secondary carer"): a part per subject,
each answered by the sentence that names its own subject."""

from __future__ import annotations

import pytest

from docuchat.research.offline import PREFIX
from docuchat.research.questions import analyse

from .conftest import Ask

PRICES = """# Lighting Price Schedule

| Item code | Description | Unit price (GBP) | Warranty (years) |
|---|---|---|---|
| LT-20 | LED track spotlight, 30 W | 74 | 5 |
| LT-40 | Recessed downlight | 31 | 2 |
| LT-60 | Emergency exit sign, maintained | 58 | 3 |
"""
HANDBOOK = """# People Handbook

## Parental leave

After 12 months of service, the primary carer of a newborn child receives 16 weeks of \
paid parental leave at full pay, in addition to the government's Parental Leave Pay. A \
secondary carer receives 4 weeks.

## Annual leave

Full-time employees accrue 20 days of paid annual leave per year.
"""


@pytest.fixture
def documents() -> dict[str, str]:
    return {"prices.md": PRICES, "handbook.md": HANDBOOK}


def by_subject(answer: str) -> dict[str, str]:
    """A comparison's answer: each paragraph's quotes by the subject that labels it."""
    paragraphs = answer.removeprefix(PREFIX).split("\n\n")
    return dict(p.split(": “", 1) for p in paragraphs if ": “" in p)


def test_phrases_either_side_of_or_vs_or_versus_are_a_comparison_s_subjects() -> None:
    spotlight = analyse(
        "Which has the longer warranty, the LED track spotlight or the emergency exit sign?"
    )
    assert spotlight.subjects == ("LED track spotlight", "emergency exit sign")
    assert spotlight.parts[1].text == "Which has the longer warranty, the emergency exit sign?"
    assert analyse("Paid parental leave: primary carer versus secondary carer?").subjects == (
        "primary carer",
        "secondary carer",
    )
    # What follows the second subject is what both are compared by.
    terms = analyse("cobaltline vs tallowwood payment terms")
    assert terms.subjects == ("cobaltline", "tallowwood")
    assert terms.parts[1].text == "tallowwood payment terms"
    assert analyse(
        "How do the forecasts for the store stock service and the WMS replacement compare?"
    ).subjects == ("store stock service", "WMS replacement")


def test_alternatives_without_a_word_that_compares_and_clauses_are_no_subjects() -> None:
    assert analyse("Is the fee paid monthly or yearly?").subjects == ()
    assert analyse("How many users or seats does the plan allow?").subjects == ()
    two = analyse("How much is the annual fee and by how much can they raise it each year?")
    assert two.subjects == () and len(two.parts) == 2


def test_a_comparison_of_table_rows_named_in_lower_case_quotes_each_row(ask: Ask) -> None:
    answer = ask(
        "Which has the longer warranty, the LED track spotlight or the emergency exit sign?"
    )
    said = by_subject(answer.answer)
    assert list(said) == ["LED track spotlight", "emergency exit sign"]
    assert "LT-20" in said["LED track spotlight"] and "LT-60" in said["emergency exit sign"]


def test_each_subject_is_answered_by_the_sentence_that_names_it_not_its_neighbour(
    ask: Ask,
) -> None:
    # Each sentence names the other subject's words nearby ("carer", "parental leave"):
    # the secondary carer's part is the sentence that says "secondary" itself.
    answer = ask("Paid parental leave: primary carer versus secondary carer?")
    said = by_subject(answer.answer)
    assert "16 weeks" in said["primary carer"] and "4 weeks" in said["secondary carer"]


def test_names_compared_by_than_are_a_comparison_s_subjects() -> None:
    asked = analyse("Is Cobaltline's notice period longer than Tallowwood's?")
    assert asked.subjects == ("Cobaltline", "Tallowwood")
    assert [p.text for p in asked.parts] == [
        "Is Cobaltline's notice period longer?",
        "Is Tallowwood's notice period longer?",
    ]
    assert analyse("Did sales grow faster in Q2 2025 than in Q2 2024?").subjects == (
        "Q2 2025",
        "Q2 2024",
    )
    # A figure after "than" is no subject.
    assert analyse("Is the notice period longer than 30 days?").subjects == ()


def test_a_comparison_missing_a_subject_s_fact_declines_and_quotes_the_other(ask: Ask) -> None:
    # Nothing says how long a wall bracket's warranty is: the comparison cannot be made.
    answer = ask("Which has the longer warranty, the LED track spotlight or the wall bracket?")
    assert answer.abstained
    assert answer.answer.startswith("The documents do not say for wall bracket.")
    assert "LED track spotlight: “" in answer.answer and "LT-20" in answer.answer
