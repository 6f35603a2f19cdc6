"""A follow-up that is only a phrase, in lower case ("And for the security gates?", "And
the app store approval risk?", "What about outside business hours?"), asks the previous
question of it: in place of the phrase after the same preposition or with the same last
word, else with the phrase added."""

from __future__ import annotations

import re
from typing import Any

import pytest

from docuchat.models.base import AssistantMessage, UserMessage
from docuchat.research.offline import ABSTAIN
from docuchat.research.questions import analyse

from .conftest import Ask

SCHEDULE = """# Shopfitting Price Schedule

| Item code | Description | Unit price (GBP) | Lead time (weeks) |
|---|---|---|---|
| SH-310 | Chilled display cabinet | 2,480 | 10 |
| SH-510 | Security gate pair | 1,975 | 6 |
| SH-620 | Checkout counter | 1,150 | 4 |
"""
RISKS = """# Programme Risks

| Risk | Owner | Rating |
|---|---|---|
| WMS data quality | Priya Shah | High |
| App store approval | Sam Patel | Medium |
"""
HANDBOOK = """# People Handbook

## Working from overseas

You may work from outside Australia for up to four weeks in any 12-month period, with \
approval from your manager.
"""


@pytest.fixture
def documents() -> dict[str, str]:
    return {"schedule.md": SCHEDULE, "risks.md": RISKS, "handbook.md": HANDBOOK}


def texts(question: str, earlier: str) -> list[str]:
    return [p.text for p in analyse(question, [earlier]).parts]


def test_a_phrase_follow_up_asks_the_previous_question_of_its_phrase() -> None:
    previous = "What's the lead time for a chilled display cabinet?"
    assert texts("And for the security gates?", previous) == [
        "What's the lead time for the security gates?"
    ]
    assert texts("And the app store approval risk?", "Who owns the WMS data quality risk?") == [
        "Who owns the app store approval risk?"
    ]
    # A preposition the previous question lacks adds a condition to it.
    assert texts(
        "What about outside business hours?", "What does Cobaltline charge for remote hands?"
    ) == ["What does Cobaltline charge for remote hands outside business hours?"]
    # A follow-up that says more than a phrase, or only a pronoun, borrows instead.
    assert texts("And after that?", "What is the rate for the first 100 miles?") == [
        "And after that?"
    ]
    assert texts("And what did we agree?", "What did Kestrel propose?") == [
        "And what did we agree?"
    ]


def test_a_phrase_follow_up_quotes_its_own_row_not_the_previous_one(ask: Ask) -> None:
    first = ask("What's the lead time for a chilled display cabinet?")
    history: list[Any] = [UserMessage(first.question), AssistantMessage(first.answer)]
    answer = ask("And for the security gates?", history=history)
    quoted = re.findall(r"“([^”]*)” \[\d+\]", answer.answer)
    assert quoted and "SH-510" in quoted[0]
    assert not any("SH-310" in q for q in quoted)


def test_what_a_phrase_follow_up_asks_about_must_be_named_by_its_answer(ask: Ask) -> None:
    first = ask("How long can I work from overseas each year?")
    assert "four weeks" in first.answer
    history: list[Any] = [UserMessage(first.question), AssistantMessage(first.answer)]
    # Working from overseas is no answer about working from another state.
    assert ask("And from interstate?", history=history).answer == ABSTAIN
