"""The learned score of a sentence against a part of a question (``research.addressing``):
every judgement carries it and says what weighed most; with the gates off it alone decides."""

from __future__ import annotations

import math
from typing import cast

import pytest

from docuchat.embeddings import Embedder
from docuchat.research.addressing import (
    BY_MEANING,
    BY_READING,
    BY_WORDS,
    Signals,
    Weights,
    weigh,
)
from docuchat.research.questions import analyse
from docuchat.research.relevance import BY_SCORE, Addressing, Thresholds, held_share, judge
from docuchat.research.sentences import Passage, sentences, stating
from docuchat.research.similarity import SentenceSimilarity

CONTRACT = (
    "Payment terms are 30 days from the invoice date. The office is in Leeds.\n\n"
    "The hosting service started on 1 March 2024."
)


def _judged(question: str, limits: Thresholds) -> dict[str, Addressing]:
    asked = analyse(question)
    found = sentences([Passage(1, "c1", CONTRACT, "Acme Hosting Contract")])
    return {s.text: judge(asked.parts[0], s, asked.text, limits=limits) for s in found}


def _signals(**changed: float | bool | None) -> Signals:
    plain: dict[str, float | bool | None] = {
        "coverage": 1.0,
        "held": 1.0,
        "similarity": None,
        "names_missing": 0.0,
        "covered": True,
        "close": False,
        "head_missing": False,
        "kind_asked": True,
        "kind_found": True,
        "unnegated": False,
    }
    return Signals(**(plain | changed))  # type: ignore[arg-type]


def test_the_score_is_the_logistic_of_the_weighed_signals_against_the_threshold() -> None:
    weights = Weights({"coverage": 2.0, "kind_not_found": -3.0, "held": 1.0}, -1.0, 0.5)
    found = weigh(_signals(coverage=0.5, held=0.0), weights)
    assert found.score == pytest.approx(1 / (1 + math.exp(-(-1.0 + 2.0 * 0.5))))
    assert found.addresses and found.weighed == (("coverage", 1.0),)
    missed = weigh(_signals(kind_found=False), weights)
    assert not missed.addresses
    assert missed.weighed == (("kind_not_found", -3.0), ("coverage", 2.0), ("held", 1.0))
    assert missed.said() == (
        "score 0.27 < 0.50 (weighed most: it states no fact of the kind asked for -3.0, "
        "the question's terms it holds +2.0, the question's terms in the sentence itself +1.0)"
    )
    # Without an embedder there is no similarity to weigh: the regression fitted for words.
    assert weigh(_signals()).threshold == BY_WORDS.threshold


def test_a_sentence_the_reader_read_is_weighed_with_its_logit() -> None:
    """Three regressions: words alone, meaning, and meaning with the reader's logit (the
    sentences an answer cites); the reader's logit is weighed only beside a similarity."""
    assert weigh(_signals(similarity=0.5)).threshold == BY_MEANING.threshold
    read = weigh(_signals(similarity=0.5, reader=3.0))
    assert read.threshold == BY_READING.threshold
    assert dict(read.weighed)["reader"] == pytest.approx(3.0 * BY_READING.weights["reader"])
    # The more the reader finds it answers, the higher the score, all else the same.
    assert weigh(_signals(similarity=0.5, reader=-3.0)).score < read.score
    assert "reader" not in _signals(reader=3.0).values()


def test_every_judgement_says_its_score_and_what_weighed_most() -> None:
    judged = _judged("What are Acme's payment terms?", Thresholds())
    said = judged["Payment terms are 30 days from the invoice date."]
    leeds = judged["The office is in Leeds."]
    assert said.addresses and not leeds.addresses
    assert said.score > 2 * leeds.score
    assert said.as_dict()["score"] == round(said.score, 3)
    # The gates decide here: the score is said without a threshold.
    assert said.reasons()[-1].startswith(f"score {said.score:.2f} (weighed most: ")
    assert "it states no fact of the kind asked for" in leeds.reasons()[-1]


def test_with_the_gates_off_the_score_alone_decides() -> None:
    question = "When did the Acme hosting agreement come into force?"
    started = "The hosting service started on 1 March 2024."
    # It passes every gate: it names a date and holds enough of the question's words...
    assert _judged(question, Thresholds())[started].addresses
    # ...but holds little of the question itself: the score declines it.
    judged = _judged(question, BY_SCORE)[started]
    assert not judged.addresses and judged.score < BY_WORDS.threshold
    assert judged.reasons()[-1].startswith(f"score {judged.score:.2f} < ")
    terms = _judged("What are Acme's payment terms?", BY_SCORE)
    assert terms["Payment terms are 30 days from the invoice date."].addresses
    assert not terms["The office is in Leeds."].addresses


def test_a_rows_held_share_counts_what_its_header_names() -> None:
    """A table row states its cells named by the header ("Response time 15 minutes"): the
    question's terms in the header count as held by the row, for the score."""
    text = (
        "Service levels\n\nPriority | Response time\n\nP1 Critical | 15 minutes\n\nP2 High | 1 hour"
    )
    found = sentences([Passage(1, "c1", text, "Acme SLA")])
    row = next(s for s in found if s.text.startswith("P1"))
    part = analyse("What is the response time for P1?").parts[0]
    alone = held_share(part, row)
    stated = held_share(part, row, stating(row, {s.id: s for s in found}))
    assert stated > alone and stated == 1.0


class _Named:
    """An embedder that only has a name (``SentenceSimilarity.fitted`` reads nothing else)."""

    def __init__(self, name: str) -> None:
        self.name = name


@pytest.mark.parametrize(
    ("name", "fitted"),
    [
        ("all-MiniLM-L6-v2", True),
        ("all-MiniLM-L6-v2-onnx-int8", True),
        ("all-MiniLM-L6-v2-bf16", True),
        ("hash-256", False),
        ("openai:text-embedding-3-small", False),
    ],
)
def test_the_score_reads_only_the_cosines_it_was_fitted_on(name: str, fitted: bool) -> None:
    similarity = SentenceSimilarity(cast(Embedder, _Named(name)))
    assert similarity.fitted is fitted
