"""Doubts: signs that the best sentence answers a different question than the one asked.

SQuAD 2.0's unanswerable questions are written to look answerable: a name,
number or date changed, a negation added, a word swapped for its opposite, the
roles of two parties reversed. Each check looks for one of those; the signs
are weighted and summed, and the model abstains at the threshold.
"""

from __future__ import annotations

from docuchat.models.offline.antonyms import opposites
from docuchat.models.offline.evidence import Reading, Sentence
from docuchat.models.offline.question import Question
from docuchat.models.offline.words import NUMBER_WORDS, is_key, negated
from docuchat.research.text import stem

DOUBT_THRESHOLD = 0.5  # balances answers and abstentions on SQuAD 2.0 (README has the curve)

_PASSIVE_MARKERS = frozenset("was were been be is are being".split())


def doubt(s: Sentence, reading: Reading) -> float:
    """Weighted signs that the documents do not answer the question; abstain at the threshold.

    Question words found in nothing that was read, and not explained as a swapped
    word, lower the doubt: the question is merely worded differently from the documents.
    """
    q, names = reading.question, reading.names
    window = s.window
    swapped = _antonym_swapped(q, s)
    changed = _substituted(q, s)
    reworded = q.terms.keys() - reading.read - swapped - changed - names - q.numbers
    return (
        1.0 * bool(q.numbers - window)
        + 0.6 * bool(names - window)
        + 0.3 * bool(names - s.stems)
        + 1.4 * (q.negated and not negated(s.text))
        + 0.65 * bool(swapped)
        + 0.5 * bool(changed)
        + 0.45 * _roles_reversed(q, s, names)
        - 0.25 * len(reworded)
    )


def _antonym_swapped(q: Question, s: Sentence) -> set[str]:
    """Question words (stopwords like "most" included) that the sentence and its neighbours
    lack while they have their opposite."""
    said = s.vocabulary
    return {term for term in {stem(w) for w in q.words} - said if opposites(term) & said}


def _substituted(q: Question, s: Sentence) -> set[str]:
    """Question terms missing where the sentence has other words between their neighbours:
    the question copies the sentence's phrase but changes a word of it."""
    position: dict[str, int] = {}
    for i, term in enumerate(s.sequence):
        position.setdefault(term, i)
    terms = q.sequence
    changed = set()
    for i, term in enumerate(terms[1:-1], 1):
        before, after = position.get(terms[i - 1], -9), position.get(terms[i + 1], -9)
        if term not in s.window and before >= 0 and 2 <= after - before <= 3:
            changed.add(term)
    return changed


def _roles_reversed(q: Question, s: Sentence, names: frozenset[str]) -> bool:
    """A "who" question puts a named party on the other side of the shared verb than the
    sentence does (passive voice accounted for): "who did X marry?" asks for X's spouse,
    and "Y married X" does not say it."""
    if not q.words or q.words[0] not in ("who", "whom"):
        return False
    said = [stem(w) for w in s.words]
    keys = [(i, stem(w)) for i, w in enumerate(q.words) if is_key(w)]
    verb = next(
        ((i, t) for i, t in keys if t not in names and t in said and t not in NUMBER_WORDS), None
    )
    if verb is None:
        return False
    asked_at, at = verb[0], said.index(verb[1])
    passive = at > 0 and s.words[at - 1] in _PASSIVE_MARKERS and "by" in s.words[at + 1 :]
    return any(
        ((said.index(term) < at) != passive) != (i < asked_at)
        for i, term in keys
        if term in names and term in said
    )
