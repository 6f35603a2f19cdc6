"""A question's contractions ("I'm", "we're", "don't") are neither key words nor names: "If
*I'm* the main carer…" asks what "If the main carer…" asks, not of someone called I'm."""

from __future__ import annotations

import pytest

from docuchat.research.followup import _names as follow_up_names
from docuchat.research.questions import analyse

from .conftest import Ask

HANDBOOK = """# People Handbook

## Parental leave

The primary carer of a new child receives 18 weeks of paid parental leave. The secondary \
carer receives 4 weeks of paid leave, taken within a year of the birth.

## Sick leave

A medical certificate is needed for absences of more than two consecutive working days.
"""


@pytest.fixture
def documents() -> dict[str, str]:
    return {"handbook.md": HANDBOOK}


@pytest.mark.parametrize(
    "question",
    [
        "If I'm the primary carer of a new baby, how much paid leave do I get?",
        "If I’m the primary carer of a new baby, how much paid leave do I get?",
        "We're hiring: how much paid leave does a primary carer of a new child get?",
    ],
)
def test_a_contraction_is_no_name_and_no_key_word(question: str) -> None:
    part = analyse(question).parts[0]
    assert part.names == frozenset()
    assert not any("'" in t or "’" in t for t in part.terms)


def test_a_follow_up_s_names_leave_out_the_first_person() -> None:
    assert follow_up_names("What if I'm the secondary carer at Acme?") == {"Acme"}


def test_a_question_with_a_contraction_is_answered_as_without_it(ask: Ask) -> None:
    answer = ask("If I'm the primary carer of a new baby, how much paid leave do I get?")
    assert not answer.abstained
    assert "18 weeks" in answer.answer and "4 weeks" not in answer.answer
    assert answer.presented
