"""The offline model with the learned score deciding (``Thresholds(gates=False)``, ``docuchat
eval qa --decision score``): it answers with the best-scored sentence that reaches the
threshold, declines when none does, and the research agent judges its citations alike."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from docuchat.research.offline import ABSTAIN, PREFIX, OfflineModel
from docuchat.research.relevance import BY_SCORE

from .conftest import Ask

CONTRACT = """# Acme Hosting Contract

## Term

The hosting service started on 1 March 2024 and renews each year.

## Payment

Payment terms are 30 days from the invoice date. Late invoices carry interest.

## Contacts

The account manager is Priya Natarajan (priya@example.com).
"""


@pytest.fixture
def documents() -> dict[str, str]:
    return {"acme.md": CONTRACT}


def test_the_best_scored_sentence_answers(ask: Ask) -> None:
    answer = ask(
        "What are Acme's payment terms?",
        model=OfflineModel(thresholds=BY_SCORE),
        thresholds=BY_SCORE,
    )
    assert answer.answer.startswith(PREFIX)
    assert "“Payment terms are 30 days from the invoice date.” [" in answer.answer
    assert answer.presentation == "answer"
    [cited] = answer.to_dict()["relevance"]["parts"][0]["addressed_by"]
    assert answer.addresses(cited) is True


def test_a_sentence_that_only_passes_the_gates_is_declined(ask: Ask) -> None:
    question = "When did the Acme hosting agreement come into force?"
    gates = ask(question)
    assert "1 March 2024" in gates.answer
    scored = ask(question, model=OfflineModel(thresholds=BY_SCORE), thresholds=BY_SCORE)
    assert scored.answer == ABSTAIN and scored.presentation == "declined"


def test_a_fact_of_a_kind_no_sentence_states_is_declined(ask: Ask) -> None:
    answer = ask(
        "What is Acme's bank account number?",
        model=OfflineModel(thresholds=BY_SCORE),
        thresholds=BY_SCORE,
    )
    assert answer.answer == ABSTAIN


class _OneDirection:
    """An embedder that is not all-MiniLM-L6-v2 and finds every text alike (cosine 1): a
    score that read its cosines would find every sentence close to every question."""

    name = space = "one-direction"
    dim = 4

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return np.tile(np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32), (len(texts), 1))


@pytest.mark.parametrize(
    "question",
    [
        "What are Acme's payment terms?",
        "When did the Acme hosting agreement come into force?",
        "Who is the account manager?",
        "What is Acme's bank account number?",
    ],
)
def test_the_score_reads_no_cosines_of_an_embedder_it_was_not_fitted_on(
    ask: Ask, question: str
) -> None:
    """The score deciding weighs words alone beside an embedder it was not fitted on, as
    without an embedder (``similarity.for_the_score``)."""
    other = OfflineModel(thresholds=BY_SCORE, embedder=_OneDirection())
    words = OfflineModel(thresholds=BY_SCORE)
    by_other = ask(question, model=other, thresholds=BY_SCORE)
    by_words = ask(question, model=words, thresholds=BY_SCORE)
    assert by_other.answer == by_words.answer
