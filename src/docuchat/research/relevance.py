"""Whether a sentence addresses a question: it carries the question's subject and states a
fact of the kind asked for.

For one part of a question (``questions.Part``) and one sentence read in its passage
(``sentences.Sentence``: the sentence, its neighbours, its document's title and heading), a
sentence *addresses* the part when

- it names what the part is about: every name, date and code of the part is in the sentence
  or around it (``names``; a name one slip away, "Carslbad" for "Carlsbad", counts);
- it or its neighbours name the thing asked for when a value alone does not ("the *account*
  number"; ``head``; a heading above it does not count: "Executive summary" names no chief
  executive);
- it and its surroundings hold at least ``COVERAGE`` of the part's terms (a term borrowed
  from another clause or the previous question counts half; ``coverage``);
- it states a fact of the kind asked for that the question does not already give: a date, a
  duration, an amount, a person… (``kinds``; no condition when the question names no kind).

The same test serves the offline model (it declines when no sentence passes it) and the
research agent, which reports for every model's citations whether the cited sentence
addresses the question.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from docuchat.research.kinds import VALUE_NOUNS, Found, Kind, find
from docuchat.research.questions import Part
from docuchat.research.sentences import Sentence
from docuchat.research.words import stem

COVERAGE = 0.25
"""The share of the part's terms (by weight: 1, half for a borrowed term) that a sentence and
its surroundings must hold at least."""
SLIP_LENGTH = 5
VALUE_STEMS = frozenset(stem(w) for w in VALUE_NOUNS)


@dataclass(frozen=True, slots=True)
class Addressing:
    """One sentence against one part of a question, and why it addresses it or not."""

    addresses: bool
    coverage: float
    """The weighted share of the part's terms in the sentence and its surroundings."""
    found: Found | None
    """The fact of the kind asked for that the sentence states (None: none, or none asked)."""
    kind: Kind | None = None
    """The kind asked for."""
    missing_names: tuple[str, ...] = ()
    missing_head: tuple[str, ...] = ()
    matched: tuple[str, ...] = ()
    """The part's terms the sentence and its surroundings hold."""

    def reasons(self) -> list[str]:
        """Why it addresses the part or not, in words."""
        said = []
        if self.missing_names:
            said.append(f"does not name {', '.join(self.missing_names)}")
        if self.missing_head:
            said.append(f"does not mention {' '.join(self.missing_head)}")
        if self.coverage < COVERAGE:
            said.append(f"holds {self.coverage:.0%} of the question's terms")
        if self.found is not None:
            said.append(f"states a {self.found.kind}: {self.found.text}")
        elif self.kind is not None:
            said.append(f"states no {self.kind}")
        return said

    def as_dict(self) -> dict[str, Any]:
        return {
            "addresses": self.addresses,
            "coverage": round(self.coverage, 3),
            "matched": list(self.matched),
            "answer": None
            if self.found is None
            else {"kind": self.found.kind, "text": self.found.text},
            "missing_names": list(self.missing_names),
            "missing_head": " ".join(self.missing_head) or None,
        }


def judge(part: Part, sentence: Sentence, question: str, quoted: str | None = None) -> Addressing:
    """``sentence`` against ``part``; ``quoted``: the text that states the fact, when more
    than the sentence (a list's introduction quoted with its item)."""
    around = sentence.surroundings
    missing = tuple(sorted(_missing_names(part, around)))
    missing_head = tuple(w for w in part.head if not _said(w, sentence.nearby))
    # A word that names a value of the kind asked for ("the *limit*") is the kind's to find.
    counted = {t: w for t, w in part.terms.items() if part.kind is None or t not in VALUE_STEMS}
    total = sum(counted.values()) or 1.0
    matched = tuple(t for t in counted if t in around)
    coverage = sum(counted[t] for t in matched) / total
    found = None
    if part.kind is not None:
        found = find(part.kind, quoted or sentence.text, question, part.counted)
    addresses = (
        not missing
        and not missing_head
        and coverage >= COVERAGE
        and (part.kind is None or found is not None)
    )
    return Addressing(addresses, coverage, found, part.kind, missing, missing_head, matched)


def _said(word: str, said: frozenset[str]) -> bool:
    """``word`` is among ``said``, or its plural or singular is."""
    return bool({word, word + "s", word.removesuffix("s")} & said)


def _missing_names(part: Part, said: frozenset[str]) -> set[str]:
    """The part's names that ``said`` lacks: a name of one word, or more than one word of a
    longer name ("Brightline Insight" may be "Brightline", not "Corvid Insight")."""
    missing: set[str] = set()
    for name in part.named:
        lacking = missing_names(name, said)
        if len(lacking) > (len(name) > 1):
            missing |= lacking
    return missing


def missing_names(names: Iterable[str], said: frozenset[str]) -> set[str]:
    """The names that ``said`` lacks, spelled as asked or one slip away: users misspell names
    ("Hatmanis", "Carslbad"), which is no sign of another name."""
    return {n for n in names if n not in said and not any(_one_slip(n, w) for w in said)}


def _one_slip(a: str, b: str) -> bool:
    """One letter added, dropped, changed, or two neighbours swapped, in words of at least
    ``SLIP_LENGTH`` letters with the same first letter (shorter names differ by one letter:
    "Hugh" and "Hugo")."""
    if min(len(a), len(b)) < SLIP_LENGTH or abs(len(a) - len(b)) > 1 or a[0] != b[0]:
        return False
    start = _shared_start(a, b)
    end = min(_shared_start(a[::-1], b[::-1]), min(len(a), len(b)) - start)
    here, there = a[start : len(a) - end], b[start : len(b) - end]
    return max(len(here), len(there)) <= 1 or (len(here) == 2 and here == there[::-1])


def _shared_start(a: str, b: str) -> int:
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


__all__ = ["COVERAGE", "Addressing", "judge", "missing_names"]
