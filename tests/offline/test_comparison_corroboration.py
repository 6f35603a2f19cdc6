"""A comparison's parts corroborate each other: when the learned score finds one subject's
quote addresses the question, the other subject's quote that passes every gate (it names
its subject, holds the question's terms and states a figure of the kind compared) addresses it
too, though the score judging it alone finds it unlikely. Before, such an answer was shown
as partial: one part of two."""

from __future__ import annotations

import pytest

from .conftest import Ask

ACME = """# Acme Hosting Contract Summary

## Fees and payment

The monthly hosting fee is 4,200 pounds, invoiced monthly in advance.
Payment terms are 30 days from the invoice date.
"""
BRIGHTLINE = """# Brightline Subscription Agreement

## 5. Invoicing

Brightline invoices the annual fee in advance.
Invoices are payable within 45 days of receipt.
"""


BRIGHTLINE_SILENT = """# Brightline Subscription Agreement

## 5. Invoicing

Brightline invoices the annual fee in advance, by e-mail to the accounts team.
"""
QUESTION = "Which contract gives us longer to pay invoices, Acme or Brightline?"


@pytest.fixture
def documents(request: pytest.FixtureRequest) -> dict[str, str]:
    return {"acme.md": ACME, "brightline.md": getattr(request, "param", BRIGHTLINE)}


def test_a_comparison_s_parts_corroborate_each_other(ask: Ask) -> None:
    answer = ask(QUESTION)
    assert "30 days" in answer.answer and "45 days" in answer.answer
    assert answer.relevance is not None and answer.relevance.addressed_parts == 2
    assert answer.presentation == "answer"
    cited = answer.to_dict(trace=False)["citations"]
    reasons = [r for c in cited for r in c["relevance"]["reasons"]]
    assert any(r.startswith("passes every gate and states a figure") for r in reasons)


@pytest.mark.parametrize("documents", [BRIGHTLINE_SILENT], indirect=True)
def test_a_subject_whose_documents_state_no_such_fact_is_not_corroborated(ask: Ask) -> None:
    answer = ask(QUESTION)
    assert answer.relevance is not None
    cited = {p.part.subject: bool(p.cited) for p in answer.relevance.parts}
    assert cited == {"Acme": True, "Brightline": False}
    assert answer.presentation == "partial"
