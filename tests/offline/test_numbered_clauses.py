"""A quote of a numbered clause ("11.1 Broadwater may terminate…") is judged as the sentence
it quotes, not as its heading's number ("11."), which the quote also contains: the trust
signal says whether the quoted sentence addresses the question."""

from __future__ import annotations

import pytest

from .conftest import Ask

AGREEMENT = """# Ticketing Services Agreement

## 11. Termination

11.1 Broadwater may terminate this Agreement for convenience by giving Quillon not less \
than 180 days' written notice.

11.2 Either party may terminate this Agreement for material breach that is not cured within \
30 days of written notice.
"""


@pytest.fixture
def documents() -> dict[str, str]:
    return {"quillon-ticketing-agreement.md": AGREEMENT}


def test_a_numbered_clause_that_answers_is_presented_as_an_answer(ask: Ask) -> None:
    answer = ask("How much notice must Broadwater give Quillon to terminate for convenience?")
    assert answer.presented and not answer.abstained
    assert "180 days" in answer.answer
    [cited] = [c for c in answer.citations if "180 days" in c.quote]
    assert cited.quote.startswith("11.1 ") and cited.verified
    assert answer.relevance is not None and answer.relevance.citations[cited.n].addresses
