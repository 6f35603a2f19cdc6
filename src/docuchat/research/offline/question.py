"""One part of a question as the offline model reads it: the research layer's analysis
(``research.questions``) with the words the sentence ranking compares."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from docuchat.research.kinds import Kind
from docuchat.research.questions import Asked, Part, meant
from docuchat.research.questions import analyse as analyse_question
from docuchat.research.text import numbers
from docuchat.research.words import stem, words


@dataclass(frozen=True, slots=True)
class Question:
    part: Part
    asked: str
    """The whole question (for a follow-up, as resolved)."""
    text: str
    words: tuple[str, ...]
    keywords: tuple[str, ...]
    """Surface words to search for: the part's own key words, then those it borrows."""
    terms: dict[str, float]
    """Stemmed key terms with a prior weight (borrowed terms weigh less)."""
    sequence: tuple[str, ...]
    """The part's own key terms in order."""
    capitalised: frozenset[str]
    """Stems of the names the part is about."""
    numbers: frozenset[str]
    """Whole numbers ("8.7", "200000"), see ``words.numbered_words``."""
    asked_for: tuple[str, ...]
    """Stems of the words that name what is asked for ("what *event*", "which *city*")."""
    kind: Kind | None
    wants_more: bool
    yes_no: bool = False
    """Asked with a verb first ("Does the company offer…?"): whether the documents say it
    (not a choice: "Is it abstract or concrete?")."""

    @property
    def borrowed(self) -> tuple[str, ...]:
        return self.part.borrowed

    @classmethod
    def of(cls, part: Part, asked: Asked) -> Question:
        said = words(part.text)
        own = [stem(w) for w in said if stem(w) in part.terms and part.terms[stem(w)] == 1.0]
        return cls(
            part=part,
            asked=asked.text,
            text=meant(part, asked),
            words=tuple(said),
            keywords=part.keywords,
            terms=dict(part.terms),
            sequence=tuple(own),
            capitalised=part.names,
            numbers=numbers(part.text),
            asked_for=part.asked_for,
            kind=part.kind,
            wants_more=asked.wants_more,
            yes_no=asked.yes_no,
        )


def analyse(question: str, earlier: Sequence[str] = ()) -> Question:
    """The first part of ``question``."""
    asked = analyse_question(question, earlier)
    return Question.of(asked.parts[0], asked)
