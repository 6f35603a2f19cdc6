"""A document's file name says what it is about when its title does not: a contract titled
"Chemical Supply Agreement", filed as quarrington-chemical-supply-agreement, is Quarrington's."""

from __future__ import annotations

import pytest

from docuchat.research.offline import PREFIX

from .conftest import Ask

QUARRINGTON = """# Chemical Supply Agreement

## Payment

The Authority shall pay each undisputed invoice within forty-five (45) days of receipt.

## Termination

Either party may terminate this Agreement for convenience by giving sixty (60) days' \
written notice.
"""
VELTMANN = """# SCADA Support and Maintenance Services Agreement

## Payment

The Authority shall pay each correct invoice within thirty (30) days of receipt.

## Termination

The Authority may terminate this Agreement for convenience by giving ninety (90) days' \
written notice.
"""


@pytest.fixture
def documents() -> dict[str, str]:
    return {
        "quarrington-chemical-supply-agreement.md": QUARRINGTON,
        "veltmann-scada-services-agreement.md": VELTMANN,
    }


def test_a_fact_of_a_party_named_only_by_its_file_is_answered(ask: Ask) -> None:
    answer = ask("How long do we have to pay Quarrington's invoices?")
    assert answer.presented
    assert "forty-five (45) days" in answer.answer and "thirty" not in answer.answer
    assert answer.citations[0].title == "Chemical Supply Agreement"


def test_a_comparison_of_parties_named_only_by_their_files_quotes_each(ask: Ask) -> None:
    answer = ask("Compare the notice to terminate the Quarrington and Veltmann agreements.")
    paragraphs = answer.answer.removeprefix(PREFIX).split("\n\n")
    quarrington, veltmann = (p for p in paragraphs if ": “" in p)
    assert quarrington.startswith("Quarrington: “") and "sixty (60) days" in quarrington
    assert veltmann.startswith("Veltmann: “") and "ninety (90) days" in veltmann
