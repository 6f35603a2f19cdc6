"""The sentences of the opened passages, ranked by how likely each answers the question.

Each sentence knows its neighbours: the sentences next to it in its paragraph,
and for a list or a table, the sentence that introduces it ("…within these
limits:") and all of its items. The rank is a linear score of lexical features
fitted on SQuAD 2.0 (see the README's evaluation), plus the dense similarity of
question and sentence when the model has an embedder.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from docuchat.research.kinds import find
from docuchat.research.offline.question import Question
from docuchat.research.sentences import Sentence, stating
from docuchat.research.similarity import SentenceSimilarity
from docuchat.research.text import fold
from docuchat.research.words import (
    TOKEN,
    stem,
)

DENSE_WEIGHT = 16.0  # chosen with all-MiniLM-L6-v2 on two SQuAD articles (see the README)


@dataclass(frozen=True, slots=True)
class Reading:
    """The question against everything read: term weights and the names it uses."""

    question: Question
    sentences: list[Sentence]
    weights: dict[str, float]
    """The question's prior weights times inverse sentence frequency among what was read."""
    names: frozenset[str]
    """Capitalised question words that the passages never use in lower case."""
    read: frozenset[str]
    """Stems of everything read."""
    stated: dict[int, str]
    """Per sentence id: what it states (``sentences.stating``: a table row's cells named by
    its header, a list item with its introduction; else its text)."""
    similarity: dict[int, float]
    """Per sentence id: the dense similarity of what it states to the question (empty without
    an embedder): what ``relevance.judge`` reads."""
    in_context: dict[int, float]
    """Per sentence id: the same, of what it states read with its document's title
    (``SentenceSimilarity.in_context``): what the ranking reads."""


def read(
    question: Question, found: list[Sentence], similarity: SentenceSimilarity | None = None
) -> Reading:
    lower = {stem(t) for s in found for t in TOKEN.findall(fold(s.text)) if t.islower()}
    by_id = {s.id: s for s in found}
    stated = {s.id: stating(s, by_id) for s in found}
    return Reading(
        question,
        found,
        _term_weights(question, found),
        question.capitalised - lower,
        frozenset().union(*(s.stems for s in found)),
        stated,
        {} if similarity is None else _similarities(question, stated, similarity),
        {} if similarity is None else _in_context(question, found, stated, similarity),
    )


def _term_weights(question: Question, read: Sequence[Sentence]) -> dict[str, float]:
    """Each term's weight: its prior (1, or less when borrowed) times its inverse frequency
    among the sentences read, so that a word every passage uses weighs little."""
    total = len(read)
    weights = {}
    for term, prior in question.terms.items():
        df = sum(1 for s in read if term in s.stems)
        weights[term] = prior * math.log(1 + (total - df + 0.5) / (df + 0.5))
    return weights


def _similarities(
    question: Question, stated: dict[int, str], similarity: SentenceSimilarity
) -> dict[int, float]:
    """The closeness in meaning of what each sentence states to the question."""
    scores = similarity(question.text, list(stated.values()))
    return dict(zip(stated, scores, strict=True))


def _in_context(
    question: Question,
    found: Sequence[Sentence],
    stated: dict[int, str],
    similarity: SentenceSimilarity,
) -> dict[int, float]:
    """The closeness in meaning of what each sentence states, in its document, to the
    question: a sentence that answers without naming what it is about ("Minutes taken by
    Jasper Ellery-Hook") ranks by its document's title too, and a near miss from another
    document loses ground (docs/readme/offline_eval.md, "Tenth round")."""
    titles = [s.title for s in found]
    scores = similarity.in_context(question.text, [stated[s.id] for s in found], titles)
    return {s.id: score for s, score in zip(found, scores, strict=True)}


@dataclass(frozen=True, slots=True)
class Sign:
    """One registered feature of the sentence score: its weight and what it measures."""

    name: str
    weight: float
    measure: Callable[[Sentence, Reading], float]
    about: str


def _share_in(place: Callable[[Sentence], frozenset[str]]) -> Callable[[Sentence, Reading], float]:
    def share(s: Sentence, reading: Reading) -> float:
        total = sum(reading.weights.values()) or 1.0
        return sum(w for t, w in reading.weights.items() if t in place(s)) / total

    return share


def _term_share(s: Sentence, reading: Reading) -> float:
    q = reading.question
    return sum(q.terms[t] for t in q.terms.keys() & s.stems) / (sum(q.terms.values()) or 1.0)


def _typed(s: Sentence, reading: Reading) -> float:
    q = reading.question
    if q.kind is None:
        return 0.0
    return 1.0 if find(q.kind, s.text, q.text, q.part.counted) else -1.0


RANKING: tuple[Sign, ...] = (
    Sign("terms_inside", 2.9, _share_in(lambda s: s.stems), "rare question terms it holds"),
    Sign("terms_around", 1.2, _share_in(lambda s: s.context), "…that its neighbours hold"),
    Sign("terms_share", 2.6, _term_share, "share of the question's terms it holds"),
    Sign(
        "term_pairs",
        0.4,
        lambda s, r: bigram_share(r.question.sequence, s.sequence),
        "question term pairs it keeps together",
    ),
    Sign("kind", 0.8, _typed, "states a fact of the kind asked for (+1) or not (-1)"),
    Sign("passage_rank", 1.1, lambda s, r: 1 / (1 + s.rank), "its passage was opened first"),
    Sign("length", 0.6, lambda s, r: math.log1p(len(s.words)), "log of its length in words"),
    Sign(
        "novel_words",
        -0.4,
        lambda s, r: math.log1p(len(s.stems - r.question.terms.keys())),
        "log of its words the question does not use",
    ),
    Sign(
        "name_elsewhere",
        -0.5,
        lambda s, r: float(bool(r.names - s.surroundings)),
        "a name of the question is not in it, its neighbours, its heading or title",
    ),
    Sign(
        "similarity",
        DENSE_WEIGHT,
        lambda s, r: r.in_context.get(s.id, 0.0),
        "cosine similarity of its embedding (with its document title's) to the question's",
    ),
)
"""The sentence score's signs. The weights were fitted on SQuAD 2.0 (two paragraphs in three
of its dev articles; the dense weight with all-MiniLM-L6-v2), except ``kind``, whose
fact-kinds (``research.kinds``) were written on the business dev set's work half; see
docs/readme/offline_eval.md."""


def relevance(s: Sentence, reading: Reading) -> float:
    """How likely ``s`` holds the answer: the weighted sum of the ranking signs."""
    return sum(sign.weight * sign.measure(s, reading) for sign in RANKING)


def contributions(s: Sentence, reading: Reading) -> dict[str, float]:
    """Each ranking sign's part of ``s``'s score (those that count)."""
    found = {sign.name: sign.weight * sign.measure(s, reading) for sign in RANKING}
    return {name: round(value, 2) for name, value in found.items() if value}


def bigram_share(question: Sequence[str], sentence: Sequence[str]) -> float:
    """Share of the question's term pairs that the sentence has side by side (or one apart)."""
    asked = set(pairwise(question))
    if not asked:
        return 0.0
    near = set(pairwise(sentence)) | set(zip(sentence, sentence[2:], strict=False))
    return len(asked & near) / len(asked)
