"""A comparison that names its subjects by a common noun ("the two contracts", "which
supplier"): each document opened is a subject, answered by its own sentence."""

from __future__ import annotations

import re

import pytest

from docuchat.research.offline import PREFIX
from docuchat.research.questions import analyse

from .conftest import Ask

HOSTING = """# Colocation Agreement - Cobaltline Data Centres

## Term

Either party may end this agreement for convenience on 120 days' written notice. The \\
agreement runs for 36 months.

## Fees

Invoices are payable within 21 days of the invoice date.
"""
SUPPORT = """# Support Services Agreement - Tallowwood

## Ending the agreement

The customer may terminate for convenience by giving 60 days' written notice. Tallowwood \\
staffs the service desk from 7 am to 7 pm.
"""
HANDBOOK = """# People Handbook

Employees accrue 20 days of annual leave per year.
"""


@pytest.fixture
def documents() -> dict[str, str]:
    return {"hosting.md": HOSTING, "support.md": SUPPORT, "handbook.md": HANDBOOK}


def test_a_common_noun_for_the_documents_compared_is_no_term_to_find() -> None:
    asked = analyse("Which of the two contracts has the longer notice period for convenience?")
    assert asked.across and not asked.subjects
    (part,) = asked.parts
    assert part.kind == "duration"  # "which… longer" compares durations, names none
    assert {"contract", "two"}.isdisjoint(part.terms)
    assert not analyse("What is the notice period for convenience?").across
    # "Which supplier" compares only with a word that compares; else it asks for a name.
    assert analyse("Which supplier responds faster to an urgent incident?").across
    assert not analyse("Which supplier did the committee pick for the warehouse?").across


def test_a_comparison_across_documents_quotes_each_document_labelled(ask: Ask) -> None:
    answer = ask("Which of the two contracts has the longer notice period for convenience?")
    paragraphs = answer.answer.removeprefix(PREFIX).split("\n\n")
    assert len(paragraphs) == 2
    said = {p.split(": “")[0]: re.findall(r"“([^”]*)”", p) for p in paragraphs}
    cobaltline = said["Colocation Agreement - Cobaltline Data Centres"]
    assert any("120 days" in q for q in cobaltline)
    assert any("60 days" in q for q in said["Support Services Agreement - Tallowwood"])
