"""The ranking reads a sentence in its document: the closeness in meaning of what it states,
embedded with its document's title, to the question (``SentenceSimilarity.in_context``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from docuchat.embeddings.hashing import HashingEmbedder
from docuchat.research.offline.answer import compose_answer
from docuchat.research.questions import analyse
from docuchat.research.sentences import Passage
from docuchat.research.similarity import SentenceSimilarity

QUESTION = "Who took the minutes at the ops meeting?"
BOARD = Passage(
    1,
    "board-1",
    "Attendees: the directors and the auditors.\n\nMinutes taken by Priya Nandakumar.",
    "Board of Directors - 3 September",
)
OPERATIONS = Passage(
    2,
    "ops-1",
    "Attendees: the site managers and planners.\n\nMinutes taken by Jasper Ellery-Hook.",
    "Operations Committee - 14 October",
)


def test_in_context_is_the_cosine_with_the_mean_of_text_and_context() -> None:
    embedder = HashingEmbedder(64)
    question, text, title = "When did it open?", "It opened in 1998.", "The Larkspur Bridge"
    q, t, c = embedder.embed([question, text, title])
    similarity = SentenceSimilarity(embedder)

    read = similarity.in_context(question, [text, text], [title, ""])

    mean = (t + c) / np.linalg.norm(t + c)
    assert read == pytest.approx([float(q @ mean), float(q @ t)], abs=1e-6)
    assert len(similarity) == 3  # the question, the text, the title: each embedded once


def test_a_sentence_that_does_not_name_its_subject_is_ranked_by_its_document(
    onnx_models: Path,
) -> None:
    """Both passages say "Minutes taken by…" and neither names the meeting; only the titles
    tell the operations committee's minutes (which the question calls "ops") from the
    board's, found first. Read alone, the board's sentence is as close to the question and
    was quoted first."""
    from docuchat.embeddings import get_embedder

    embedder = get_embedder("minilm-onnx", cache_dir=onnx_models)
    assert embedder is not None
    answer = compose_answer(analyse(QUESTION), [BOARD, OPERATIONS], SentenceSimilarity(embedder))
    first = answer.split("“")[1]
    assert first.startswith("Minutes taken by Jasper Ellery-Hook.")
