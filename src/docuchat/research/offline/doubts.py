"""Doubts: signs that the best sentence answers a different question than the one asked.

SQuAD 2.0's unanswerable questions are written to look answerable: a name,
number or date changed, a negation added, a word swapped for its opposite, the
words of a name or the roles of two parties reversed, a superlative asked of
what the text ranks second, another kind of a thing asked about ("dental"
insurance where the text has "health" insurance). Each check looks for one of
those signs in the best sentence (and its neighbours); the signs are weighted
and summed, and the model abstains at the threshold. Question words found in
nothing that was read lower the doubt that rests on a missing word (a name, a
changed word, an unknown kind, a word whose opposite is there): the question is
then worded differently from the documents, and a missing word is no sign of a
changed one (unless it qualifies a noun that the sentence qualifies otherwise).
They do not lower a doubt that rests on contrary evidence (an added "not", a
number missing or counting something else, a scrambled name, reversed roles, a
qualified superlative, another kind of the thing in a yes/no question), nor the
lack of an answer of the kind asked for: SQuAD's crowd workers often add a "not"
to a sentence and reword two of its other words.

The weights were fitted on two paragraphs in three of the SQuAD 2.0 dev
articles and checked on the third (``bench/qa_offline.py``; the README has the
figures).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import pairwise

from docuchat.research.kinds import find
from docuchat.research.offline.antonyms import opposites
from docuchat.research.offline.evidence import Reading
from docuchat.research.offline.question import Question
from docuchat.research.relevance import missing_names
from docuchat.research.sentences import Sentence
from docuchat.research.text import STOPWORDS
from docuchat.research.words import (
    NUMBER_WORDS,
    fold,
    is_key,
    is_number,
    negated,
    numbered_words,
    stem,
    words,
)

DOUBT_THRESHOLD = 1.0

# Fitted by bench/qa_offline.py on two paragraphs in three of every SQuAD 2.0 dev article
# (hybrid search, all-MiniLM-L6-v2), scaled so that the model abstains at a doubt of 1: one
# sign of contrary evidence, a missing name or an opposite abstains; a changed word or an
# unknown kind alone does not.
WEIGHTS = {
    "number_missing": 1.12,
    "number_rebound": 1.0,
    "name_missing_nearby": 0.96,
    "name_missing_here": 1.0,
    "name_scrambled": 1.02,
    "negation_added": 1.13,
    "opposite": 1.02,
    "word_changed": 0.95,
    "roles_reversed": 1.0,
    "superlative_qualified": 1.0,
    "kind_unknown": 0.95,
    "qualifier_unknown": 1.0,
    "answer_type_missing": 0.95,
    "reworded": -0.45,
}
"""Per sign; a sign counts 1 when present ("reworded": per question word)."""

OFFSET_BY_REWORDING = frozenset(
    {"name_missing_nearby", "name_missing_here", "word_changed", "kind_unknown", "opposite"}
)
"""The signs that rest on a question word missing from the sentence (or its neighbours):
rewording can explain them, so reworded words lower only their part of the doubt (never
below zero)."""

CONTRARY_EVIDENCE = frozenset(
    {"number_missing", "number_rebound", "name_scrambled", "negation_added", "roles_reversed"}
    | {"superlative_qualified", "qualifier_unknown"}
)
"""The signs that the sentence says something else than the question asks: each abstains
alone (its weight is at least the threshold), whatever the rewording. The last sign,
``answer_type_missing``, is neither kind: no rewording explains a missing date, and
alone it is weak."""

_PASSIVE_MARKERS = frozenset("was were been be is are being".split())
_WHO = frozenset({"who", "whom", "whose"})
_SCALES = frozenset("hundred thousand million billion trillion percent".split())
_ORDINAL = re.compile(r"^(\d+(st|nd|rd|th)|second|third|fourth|fifth|sixth|seventh|eighth|ninth)$")
_CAPITALISED_RUN = re.compile(r"\b[A-Z][\w'’]*(?:[ -]+[A-Z][\w'’]*)+")
_POSSESSIVE_END = re.compile(r"['’]s\b")
_DIGIT = re.compile(r"\d")


def doubt(found: Mapping[str, float], weights: Mapping[str, float] = WEIGHTS) -> float:
    """The weighted signs of contrary evidence, plus those that rest on a missing word
    less the reworded words (at least zero); the model abstains at the threshold."""
    missing = sum(weights[sign] * found.get(sign, 0.0) for sign in OFFSET_BY_REWORDING)
    reworded = weights["reworded"] * found.get("reworded", 0.0)
    contrary = sum(
        weights[sign] * value
        for sign, value in found.items()
        if sign not in OFFSET_BY_REWORDING and sign != "reworded"
    )
    return contrary + max(0.0, missing + reworded)


def signs(s: Sentence, reading: Reading, quoted: Sequence[Sentence]) -> dict[str, float]:
    """Each sign that the best sentence ``s`` answers another question than the one asked,
    0 or 1 (or a count); ``quoted`` are the sentences the answer quotes, ``s`` first."""
    q, names = reading.question, reading.names
    # What ``s`` states: itself, and for part of a list, the item quoted with it.
    stated = s.stems.union(*(other.stems for other in quoted if other.id in s.items))
    swapped = _antonym_swapped(q, s)
    changed = _substituted(q, s)
    qualified = _qualifier_unknown(q, s, reading)
    # Numbers, in digits or words, are compared by the number signs, not as rewording.
    figures = {t for t in q.terms if _DIGIT.search(t) or t in NUMBER_WORDS | _SCALES}
    reworded = q.terms.keys() - reading.read - swapped - changed - qualified - names - figures
    kind = q.kind
    untyped = kind is not None and not any(
        find(kind, o.text, q.text, q.part.counted) for o in quoted
    )
    return {
        "number_missing": float(bool(q.numbers - s.numbers)),
        "number_rebound": float(_number_rebound(q, s)),
        "name_missing_nearby": float(bool(missing_names(names, s.window))),
        "name_missing_here": float(bool(missing_names(names, stated))),
        "name_scrambled": float(_name_scrambled(q, s)),
        "negation_added": float(q.negated and not negated(s.text)),
        "opposite": float(bool(swapped)),
        "word_changed": float(bool(changed)),
        "roles_reversed": float(_roles_reversed(q, s, names)),
        "superlative_qualified": float(_superlative_qualified(q, s)),
        "kind_unknown": float(_kind_unknown(q, s, reading.read)),
        # Only for yes/no questions: in a wh-question the word often rewords what is asked
        # for (on SQuAD's training paragraphs: 37 answerable, 56 unanswerable questions).
        "qualifier_unknown": float(q.yes_no and bool(qualified)),
        "answer_type_missing": float(untyped),
        "reworded": float(len(reworded)),
    }


def _antonym_swapped(q: Question, s: Sentence) -> set[str]:
    """Question words (stopwords like "most" included) that the sentence and its neighbours
    lack while they have their opposite."""
    said = s.vocabulary
    asks_who = bool(q.words) and q.words[0] in _WHO
    asked = {stem(w) for w in q.words} - said
    return {term for term in asked if opposites(term, asks_who=asks_who) & said}


def _substituted(q: Question, s: Sentence) -> set[str]:
    """Question terms missing where the sentence has other words between their neighbours:
    the question copies the sentence's phrase but changes a word of it (not the word that
    names what is asked for: "in what *event*" stands for the answer itself). Neighbours
    side by side somewhere in the sentence mean the word was left out, not changed."""
    positions: dict[str, list[int]] = {}
    for i, term in enumerate(s.sequence):
        positions.setdefault(term, []).append(i)
    terms = q.sequence
    changed = set()
    for i, term in enumerate(terms[1:-1], 1):
        gaps = {
            after - before
            for before in positions.get(terms[i - 1], [])
            for after in positions.get(terms[i + 1], [])
        }
        if term not in s.window and gaps & {2, 3} and 1 not in gaps:
            changed.add(term)
    return changed - set(q.asked_for)


def _number_pairs(text: str) -> set[tuple[str, str]]:
    """(number, the stem of the word after it) for each number followed by a content word
    or a scale ("20 million")."""
    said = numbered_words(text)
    return {
        (w, stem(after))
        for w, after in pairwise(said)
        if is_number(w) and after not in STOPWORDS and (after in _SCALES or not is_number(after))
    }


def _number_rebound(q: Question, s: Sentence) -> bool:
    """A number of the question counts something else in the sentence: "one Metropolitan
    Statistical Area" against "one Combined Statistical Area, eight Metropolitan…", or
    "$20 million" against "$20 billion"."""
    said = _number_pairs(s.text)
    for number, thing in _number_pairs(q.text) - said:
        for other, counted in said:
            if (other != number and counted == thing) or (
                other == number and {thing, counted} <= _SCALES
            ):
                return True
    return False


def _name_scrambled(q: Question, s: Sentence) -> bool:
    """A name of several capitalised words in the question whose words the sentence has, but
    never in that order ("Tim Machado" against "Rob Machado, Tim Curran")."""
    said = list(s.words)
    text = fold(q.text)
    for match in _CAPITALISED_RUN.finditer(text):
        run = _POSSESSIVE_END.split(match.group())[0]  # "Guy's Rival": Guy's, not a name
        name = words(run)[1 if match.start() == 0 else 0 :]
        if len(name) >= 2 and set(name) <= set(said) and not _contains(said, name):
            return True
    return False


def _contains(said: Sequence[str], run: Sequence[str]) -> bool:
    return any(list(said[i : i + len(run)]) == list(run) for i in range(len(said)))


def _superlative_qualified(q: Question, s: Sentence) -> bool:
    """The question asks for the most, the largest, the busiest… X, and the sentence says it
    only of the second or third X ("the second-busiest airport")."""
    asked, said = q.words, s.words
    for i, word in enumerate(asked[:-1]):
        superlative = word in ("most", "least") or (word.endswith("est") and len(word) > 4)
        if not superlative or (i and _ORDINAL.match(asked[i - 1])):
            continue
        of = asked[i + 1]
        ranked = [j for j in range(len(said)) if said[j] == word and of in said[j + 1 : j + 3]]
        if ranked and all(j and _ORDINAL.match(said[j - 1]) for j in ranked):
            return True
    return False


def _kind_unknown(q: Question, s: Sentence, read: frozenset[str]) -> bool:
    """The kind of thing asked for is named with a word that nothing read uses, while the
    sentence has the rest of its name ("which *dental* insurance": the documents know
    insurance, not dental insurance). Alone it is no more than a reworded question; it
    adds to other signs."""
    *qualifiers, kind = q.asked_for or ("",)
    return kind in s.window and any(w not in read for w in qualifiers)


def _qualifier_unknown(q: Question, s: Sentence, reading: Reading) -> set[str]:
    """Question words that qualify a noun ("*dental* insurance") with a word nothing read
    uses, where the sentence qualifies the noun otherwise ("health insurance"): another kind
    of the thing than the one asked about, not a question worded differently."""
    qualified: dict[str, set[str]] = {}
    for before, after in pairwise(s.words):
        if is_key(before) and is_key(after):
            qualified.setdefault(stem(after), set()).add(stem(before))
    found = set()
    for first, second in pairwise(q.words):
        if not (is_key(first) and is_key(second)):
            continue
        word, noun = stem(first), stem(second)
        if word not in reading.read and qualified.get(noun, set()) - {word}:
            found.add(word)
    return found


def _roles_reversed(q: Question, s: Sentence, names: frozenset[str]) -> bool:
    """A "who" question puts a named party on the other side of the shared verb than the
    sentence does, wherever the sentence uses them (passive voice accounted for): "who did
    X marry?" asks for X's spouse, and "Y married X" does not say it."""
    if not q.words or q.words[0] not in _WHO - {"whose"}:
        return False
    said = [stem(w) for w in s.words]
    keys = [(i, stem(w)) for i, w in enumerate(q.words) if is_key(w)]
    # A word beside a name in both texts is part of the name's phrase ("Irish culture"),
    # not the verb that puts the name on one side.
    named = {i for i, t in keys if t in names}
    sides = set(pairwise(said))
    asked = pairwise(stem(w) for w in q.words)
    beside = [(i, i + 1) for i, pair in enumerate(asked) if pair in sides]
    phrased = {j for pair in beside if named.intersection(pair) for j in pair}
    verb = next(
        (
            (i, t)
            for i, t in keys
            if t not in names and t in said and t not in NUMBER_WORDS and i not in phrased
        ),
        None,
    )
    if verb is None:
        return False
    asked_at = verb[0]
    verbs = [at for at, t in enumerate(said) if t == verb[1]]

    def passive(at: int) -> bool:
        # "were encouraged by", and with an adverb between: "were first encouraged by".
        marked = _PASSIVE_MARKERS.intersection(s.words[max(0, at - 2) : at])
        return bool(marked) and "by" in s.words[at + 1 :]

    def agrees(i: int, term: str) -> bool:
        """Some use of the name sits on the question's side of some use of the verb."""
        return any(
            ((n < at) != passive(at)) == (i < asked_at)
            for at in verbs
            for n, t in enumerate(said)
            if t == term
        )

    return any(not agrees(i, term) for i, term in keys if term in names and term in said)
