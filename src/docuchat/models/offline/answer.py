"""The answer: the best sentences quoted verbatim with their citations, or the abstention."""

from __future__ import annotations

from collections.abc import Sequence

from docuchat.models.offline.doubts import DOUBT_THRESHOLD, doubt
from docuchat.models.offline.evidence import SENTENCE_CLOSED, Sentence, read, relevance, sentences
from docuchat.models.offline.question import Question
from docuchat.models.offline.transcript import Passage

PREFIX = "From the documents (extractive): "
ABSTAIN = "The documents do not say."
ANSWER_WORDS = 60
LONG_ANSWER_WORDS = 150
LONG_ANSWER_SENTENCES = 5
RUNNER_UP_MARGIN = 2.0
MIN_MATCHED_SHARE = 0.25


def compose_answer(
    question: Question, passages: Sequence[Passage], threshold: float = DOUBT_THRESHOLD
) -> str:
    """Quoted best sentences with their citations, or the abstention."""
    found = sentences(passages)
    if not found or not question.terms:
        return ABSTAIN
    reading = read(question, found)
    scores = {s.id: relevance(s, reading) for s in found}
    ranked = sorted(found, key=lambda s: scores[s.id], reverse=True)
    best = ranked[0]
    own = [t for t, prior in question.terms.items() if prior == 1.0] or list(question.terms)
    if sum(t in best.window for t in own) < MIN_MATCHED_SHARE * len(own):
        return ABSTAIN  # nothing read is about the question
    if doubt(best, reading) >= threshold:
        return ABSTAIN
    return PREFIX + " ".join(_quote(s) for s in _pick(ranked, scores, question))


def _pick(
    ranked: Sequence[Sentence], scores: dict[int, float], question: Question
) -> list[Sentence]:
    """The best sentence, then runners-up that score nearly as well and fit the word budget;
    for a short answer, the item asked about when the best introduces a list, else the
    runner-up from another passage first (a second source)."""
    best = ranked[0]
    budget = LONG_ANSWER_WORDS if question.wants_more else ANSWER_WORDS
    close = [
        s
        for s in ranked[1:]
        if scores[best.id] - scores[s.id] <= RUNNER_UP_MARGIN and not _overlap(s, best)
    ]
    if not question.wants_more:
        fitting = [s for s in close if len(best.words) + len(s.words) <= budget]
        elsewhere = [s for s in fitting if s.n != best.n]
        return [best, *(_asked_item(best, ranked, question) or elsewhere or fitting)[:1]]
    chosen, used = [best], len(best.words)
    for other in close:
        fits = len(chosen) < LONG_ANSWER_SENTENCES and used + len(other.words) <= budget
        if fits and not any(_overlap(other, c) for c in chosen):
            chosen.append(other)
            used += len(other.words)
    return chosen


def _asked_item(best: Sentence, ranked: Sequence[Sentence], question: Question) -> list[Sentence]:
    """When the best sentence introduces a list or table, the item that names what the
    question asks and the introduction does not ("London | £160" under "…these limits:")."""
    items = [s for s in ranked if s.id in best.items]
    missing = question.terms.keys() - best.stems
    return [s for s in items if missing & s.stems][:1]


def _overlap(a: Sentence, b: Sentence) -> bool:
    """The same sentence, also when read twice from overlapping passages (maybe cut short)."""
    return a.text in b.text or b.text in a.text


def _quote(sentence: Sentence) -> str:
    """The sentence in quotes with its citation; one that does not end like a sentence (a
    list's introduction, a table row) ends in "…", so that the next quote stays apart."""
    text = sentence.text.rstrip()
    if not SENTENCE_CLOSED.search(text):
        text = text.removesuffix(":") + "…"
    return f"“{text}” [{sentence.n}]"
