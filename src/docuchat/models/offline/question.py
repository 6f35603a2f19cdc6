"""What a question asks: its key terms, names, numbers, the kind of answer it wants."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from docuchat.models.offline.words import (
    DIGIT,
    PRONOUNS,
    capitalised,
    is_key,
    negated,
    words,
)
from docuchat.research.text import stem

AnswerType = Literal["date", "number", "name"] | None

_TYPE_CUES: tuple[tuple[AnswerType, re.Pattern[str]], ...] = (
    (
        "date",
        re.compile(
            r"^when\b|\b(what|which) (year|century|decade|date|month|day|era|period)\b"
            r"|\bhow long ago\b"
        ),
    ),
    (
        "number",
        re.compile(
            r"\bhow (many|much|long|far|old|big|large|tall|high|often|fast|wide|deep|heavy)\b"
            r"|\bwhat (percentage|percent|proportion|number|amount|fraction|share|size)\b"
        ),
    ),
    ("name", re.compile(r"\b(who|whom|whose)\b|^where\b")),
)
_LONG_ANSWER = re.compile(r"\b(list|summari[sz]e|summary|explain|describe|details?)\b")


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    words: tuple[str, ...]
    keywords: tuple[str, ...]
    """Surface words to search for."""
    terms: dict[str, float]
    """Stemmed key terms with a prior weight (terms borrowed from history weigh half)."""
    sequence: tuple[str, ...]
    """The question's own key terms in order."""
    capitalised: frozenset[str]
    numbers: frozenset[str]
    answer_type: AnswerType
    negated: bool
    wants_more: bool


def analyse(question: str, earlier: Sequence[str] = ()) -> Question:
    """The question's terms; a follow-up that leans on the conversation ("when did it
    open?") borrows the previous question's key terms at half weight."""
    said = words(question)
    own = list(dict.fromkeys(w for w in said if is_key(w)))
    keywords = list(own)
    terms = {stem(w): 1.0 for w in own}
    if earlier and (len(own) <= 2 or any(w in PRONOUNS for w in said)):
        borrowed = [w for w in dict.fromkeys(words(earlier[-1])) if is_key(w)]
        borrowed = [w for w in borrowed if stem(w) not in terms]
        keywords += borrowed
        terms |= {stem(w): 0.5 for w in borrowed}
    lowered = question.lower()
    return Question(
        text=question,
        words=tuple(said),
        keywords=tuple(keywords),
        terms=terms,
        sequence=tuple(stem(w) for w in said if is_key(w)),
        capitalised=frozenset(stem(w) for w in capitalised(question)) & terms.keys(),
        numbers=frozenset(stem(w) for w in said if DIGIT.search(w)),
        answer_type=next((kind for kind, cue in _TYPE_CUES if cue.search(lowered)), None),
        negated=negated(question),
        wants_more=bool(_LONG_ANSWER.search(lowered)),
    )
