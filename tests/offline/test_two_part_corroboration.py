"""A two-part question's parts corroborate each other as a comparison's do: when the learned
score finds one part's quote addresses the question, the other part's quote that passes
every gate (it names the part's subject, holds its terms, is outdone by no other document)
and states a figure of the kind its part asks for addresses it too, though the score judging
it alone finds it unlikely. Before, such an answer was shown as partial: one part of two."""

from __future__ import annotations

import pytest

from .conftest import Ask

OUTAGE = """# Payment outage review

## Impact

The service desk handled 412 contacts on the day of the outage.

## Credits

A service credit claim must be lodged within 30 days of the end of the month in which the
outage occurred.
"""
OUTAGE_VAGUE = OUTAGE.replace("within 30 days of", "promptly after")
QUESTION = (
    "How many contacts did the service desk handle during the outage, and how long do we"
    " have to lodge a credit claim?"
)


@pytest.fixture
def documents(request: pytest.FixtureRequest) -> dict[str, str]:
    return {"outage.md": getattr(request, "param", OUTAGE)}


def test_a_two_part_question_s_parts_corroborate_each_other(ask: Ask) -> None:
    answer = ask(QUESTION)
    assert "412 contacts" in answer.answer and "30 days" in answer.answer
    assert answer.relevance is not None and answer.relevance.addressed_parts == 2
    assert answer.presentation == "answer"
    # the second part's quote is in the first part's passage: the part says why
    assert [p.corroborated for p in answer.relevance.parts] == [False, True]
    parts = answer.to_dict(trace=False)["relevance"]["parts"]
    assert parts[1]["corroborated"].startswith("its quote passes every gate")
    assert "corroborated" not in parts[0]


@pytest.mark.parametrize("documents", [OUTAGE_VAGUE], indirect=True)
def test_a_part_answered_without_a_figure_is_not_corroborated(ask: Ask) -> None:
    answer = ask(QUESTION)
    assert answer.relevance is not None and answer.relevance.addressed_parts == 1
    assert answer.presentation == "partial"
