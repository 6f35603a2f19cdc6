"""The answer: the best sentences quoted verbatim with their citations, or the abstention."""

from __future__ import annotations

from collections.abc import Sequence

from docuchat.models.offline.doubts import DOUBT_THRESHOLD, doubt
from docuchat.models.offline.evidence import (
    SENTENCE_CLOSED,
    Reading,
    Sentence,
    read,
    relevance,
    sentences,
)
from docuchat.models.offline.question import Question
from docuchat.models.offline.transcript import Passage
from docuchat.models.offline.words import TOKEN, bare, fold
from docuchat.research.text import stem

# A paragraph of its own, so that no quote's citation is checked against the prefix's words.
PREFIX = "From the documents (extractive):\n\n"
ABSTAIN = "The documents do not say."
ANSWER_WORDS = 60
LONG_ANSWER_WORDS = 150
LONG_ANSWER_SENTENCES = 5
RUNNER_UP_MARGIN = 2.0
SECOND_SOURCE_MARGIN = 3.0
MIN_FRAGMENT_WORDS = 8
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
    if question.wants_more:
        return PREFIX + " ".join(_quote(s) for s in _pick_more(ranked, scores))
    return PREFIX + " ".join(_pick(ranked, scores, reading))


def _pick(ranked: Sequence[Sentence], scores: dict[int, float], reading: Reading) -> list[str]:
    """The best sentence, then the item asked about when it introduces a list, else a
    second source: the best sentence of another passage that scores nearly as well, cut
    to the words around the question's terms when it does not fit the word budget."""
    best = ranked[0]
    item = _asked_item(best, ranked, reading.question)
    if item:
        return [_quote(best), _quote(item[0])]
    left = ANSWER_WORDS - len(best.words)
    close = [s for s in ranked[1:] if scores[best.id] - scores[s.id] <= SECOND_SOURCE_MARGIN]
    elsewhere = [s for s in close if s.n != best.n and not _overlap(s, best)]
    if elsewhere and len(elsewhere[0].words) <= left:
        return [_quote(best), _quote(elsewhere[0])]
    if elsewhere and left >= MIN_FRAGMENT_WORDS:
        return [_quote(best), _quote_part(elsewhere[0], reading, left)]
    fitting = [s for s in close if not _overlap(s, best) and len(s.words) <= left]
    fitting = [s for s in fitting if scores[best.id] - scores[s.id] <= RUNNER_UP_MARGIN]
    return [_quote(best), *(_quote(s) for s in fitting[:1])]


def _pick_more(ranked: Sequence[Sentence], scores: dict[int, float]) -> list[Sentence]:
    """For a question that asks for a list or a summary: the best sentences that score
    nearly as well, up to five and 150 words."""
    best = ranked[0]
    chosen, used = [best], len(best.words)
    for other in ranked[1:]:
        if scores[best.id] - scores[other.id] > RUNNER_UP_MARGIN:
            break
        fits = len(chosen) < LONG_ANSWER_SENTENCES and used + len(other.words) <= LONG_ANSWER_WORDS
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


def _quote_part(sentence: Sentence, reading: Reading, budget: int) -> str:
    """The ``budget`` words of the sentence that hold the most of the question's terms (by
    weight), centred on them, quoted verbatim with "…" where the sentence goes on."""
    tokens = list(TOKEN.finditer(sentence.text))
    weights = [reading.weights.get(stem(bare(fold(t.group()))), 0.0) for t in tokens]
    size = min(budget, len(tokens))
    matched = [i for i, w in enumerate(weights) if w] or [0]
    focus = (matched[0] + matched[-1]) / 2

    def key(start: int) -> tuple[float, float]:
        terms = {tokens[i].group().lower(): weights[i] for i in range(start, start + size)}
        return sum(terms.values()), -abs(start + (size - 1) / 2 - focus)

    start = max(range(len(tokens) - size + 1), key=key)
    end = start + size
    cut_from = tokens[start].start() if start else 0
    cut_to = tokens[end - 1].end() if end < len(tokens) else len(sentence.text)
    text = sentence.text[cut_from:cut_to].rstrip().removesuffix(":")
    opening = "…" if start else ""
    closing = "" if end == len(tokens) and SENTENCE_CLOSED.search(text) else "…"
    return f"“{opening}{text}{closing}” [{sentence.n}]"
