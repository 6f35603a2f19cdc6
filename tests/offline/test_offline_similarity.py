"""The offline model's optional dense similarity, with the hashing embedder (no weights)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from docuchat.embeddings.base import Vectors
from docuchat.embeddings.hashing import HashingEmbedder
from docuchat.research.offline import OfflineModel
from docuchat.research.offline.evidence import read
from docuchat.research.offline.question import Question
from docuchat.research.questions import analyse
from docuchat.research.relevance import Thresholds
from docuchat.research.sentences import Passage, sentences
from docuchat.research.similarity import SentenceSimilarity

from .conftest import Ask

QUESTION = "Who designed the Larkspur Bridge?"
SENTENCES = [
    "The Larkspur Bridge was designed by the engineer Mara Quinn.",
    "Holloway Bakery employs twelve people.",
]


def test_similarity_is_the_cosine_of_the_embedder_s_vectors() -> None:
    embedder = HashingEmbedder(64)
    vectors = embedder.embed([QUESTION, *SENTENCES])

    scores = SentenceSimilarity(embedder)(QUESTION, SENTENCES)

    assert scores == pytest.approx([float(vectors[0] @ v) for v in vectors[1:]], abs=1e-6)
    assert scores[0] > scores[1]


def test_each_text_is_embedded_once_and_the_cache_stays_bounded() -> None:
    similarity = SentenceSimilarity(HashingEmbedder(64), cached=4)
    similarity(QUESTION, SENTENCES)
    assert len(similarity) == 3
    assert similarity(QUESTION, SENTENCES) == similarity(QUESTION, SENTENCES[::-1])[::-1]
    assert len(similarity) == 3

    similarity("When did it open?", [f"Sentence number {i}." for i in range(6)])
    assert len(similarity) == 7  # the texts of the last call are all kept, older ones go
    similarity("When did it open?", ["Sentence number 0."])
    assert len(similarity) == 4


def test_the_model_with_an_embedder_answers_through_the_runtime(ask: Ask) -> None:
    model = OfflineModel(embedder=HashingEmbedder(64))
    answer = ask(QUESTION, model=model)
    assert "Mara Quinn" in answer.answer and answer.verified_count >= 1
    assert model.similarity is not None and len(model.similarity) > 1


def test_with_embedder_keeps_the_budget_and_the_thresholds() -> None:
    model = OfflineModel(max_tool_calls=3, max_iterations=4, thresholds=Thresholds(coverage=0.9))
    dense = model.with_embedder(HashingEmbedder(64))
    assert (dense.budget, dense.thresholds) == (model.budget, model.thresholds)
    assert dense.similarity is not None and model.similarity is None
    assert np.isclose(dense.similarity(QUESTION, [QUESTION])[0], 1.0)


def test_with_an_embedder_it_searches_the_question_as_asked(ask: Ask) -> None:
    answer = ask(QUESTION, model=OfflineModel(embedder=HashingEmbedder(64)))
    searches = [e.input for e in answer.run.events if e.type == "tool_call_finished"]
    assert searches[0] == {"query": QUESTION}  # key words alone without one


def test_with_an_embedder_a_search_that_found_nothing_is_refined_to_key_words(ask: Ask) -> None:
    answer = ask(
        "What is the zorblax frobnication?", model=OfflineModel(embedder=HashingEmbedder(64))
    )
    queries = [
        e.input["query"]
        for e in answer.run.events
        if e.type == "tool_call_finished" and e.name == "search_docs"
    ]
    assert queries[:2] == ["What is the zorblax frobnication?", "zorblax frobnication"]


class _Recording(HashingEmbedder):
    """The hashing embedder, keeping every text it was asked to embed."""

    def __init__(self) -> None:
        super().__init__(64)
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.texts += texts
        return super().embed(texts)


def test_a_row_is_embedded_as_what_it_states() -> None:
    """A row's bare cells ("P1 Critical | 15 minutes") are far in meaning from any question:
    what is embedded is the row with its cells named by the header."""
    text = "Service levels\n\nPriority | Response time\n\nP1 Critical | 15 minutes"
    found = sentences([Passage(1, "c1", text, "Acme SLA")])
    asked = analyse("What is the response time for P1 incidents?")
    embedder = _Recording()
    read(Question.of(asked.parts[0], asked), found, SentenceSimilarity(embedder))
    assert "P1 Critical | 15 minutes" not in embedder.texts
    assert any("Response time 15 minutes" in t for t in embedder.texts)
