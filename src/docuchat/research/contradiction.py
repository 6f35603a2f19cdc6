"""When a passage that shares a claim's words still does not support it.

Two checks, both by word alignment rather than by mere presence (a passage
sentence often holds a "not" or a number that has nothing to do with the
claim: "the Bayeux Tapestry, which is not a tapestry but embroidery"):

- a negation that one side has and the other lacks: a negation word stands
  between two content words (the nearest on either side) that the other text
  has close together, in the same order, with no negation between them ("The
  meeting is not on Tuesday" against "The meeting is on Tuesday");
- a number out of context: each number of the claim must occur in a passage
  sentence that also holds a content word standing beside it in the claim
  ("rent ... 14,000" against "The rent is 14,400 pounds").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from itertools import islice
from typing import Literal

from docuchat.research.text import (
    NEGATIONS,
    STOPWORDS,
    WEAK_NEGATION,
    is_number,
    numbered_words,
    stem,
)

WINDOW = 6
"""How many words apart two anchor words may stand and still be close."""

Side = Literal["between", "before", "after"]
"""Where a negation stands with respect to its two anchor words."""

# Any negation word at all (a cheap test before the alignment): NEGATIONS and "n't".
_ANY_NEGATION = re.compile(r"\b(?:" + "|".join(sorted(NEGATIONS)) + r")\b|n['’]t\b", re.IGNORECASE)
_DIGIT = re.compile(r"\d")


def negation_differs(claim: str, evidence: str) -> bool:
    """One text negates what the other, worded alike there, does not."""
    if not (_ANY_NEGATION.search(claim) or _ANY_NEGATION.search(evidence)):
        return False
    a, b = _tokens(claim), _tokens(evidence)
    return _unmatched_negation(a, b) or _unmatched_negation(b, a)


def numbers_in_context(claim: str, sentences: Sequence[str]) -> bool:
    """Every number of the claim occurs in a sentence that holds a word beside it in the claim."""
    if not _DIGIT.search(claim):
        return True
    tokens = _tokens(claim)
    numbered: list[tuple[frozenset[str], frozenset[str]]] | None = None
    for i, token in enumerate(tokens):
        if not is_number(token):
            continue
        if numbered is None:
            numbered = [_numbers_and_stems(s) for s in sentences]
        neighbours = {*_content_before(tokens, i, 2), *_content_after(tokens, i, 2)}
        if not any(
            token in found and (not neighbours or neighbours & stems) for found, stems in numbered
        ):
            return False
    return True


@lru_cache(maxsize=4096)  # a passage's sentences are met again with each claim citing it
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(numbered_words(WEAK_NEGATION.sub(" ", text.lower())))


def _is_negation(token: str) -> bool:
    return token in NEGATIONS or token.endswith(("n't", "n’t"))


def _is_content(token: str) -> bool:
    return token not in STOPWORDS and not _is_negation(token) and not is_number(token)


def _content_before(tokens: tuple[str, ...], i: int, most: int) -> list[str]:
    """Stems of the (at most ``most``) content words before position ``i``, nearest first."""
    return list(islice((stem(t) for t in reversed(tokens[:i]) if _is_content(t)), most))


def _content_after(tokens: tuple[str, ...], i: int, most: int) -> list[str]:
    return list(islice((stem(t) for t in tokens[i + 1 :] if _is_content(t)), most))


@lru_cache(maxsize=4096)
def _numbers_and_stems(sentence: str) -> tuple[frozenset[str], frozenset[str]]:
    tokens = _tokens(sentence)
    return (
        frozenset(t for t in tokens if is_number(t)),
        frozenset(stem(t) for t in tokens if _is_content(t)),
    )


def _unmatched_negation(source: tuple[str, ...], other: tuple[str, ...]) -> bool:
    """Some negation of ``source`` stands between (or beside) words that ``other`` has close
    together, and nowhere with a negation in that place."""
    where: Side
    other_stems = [stem(t) if _is_content(t) else None for t in other]
    for i, token in enumerate(source):
        if not _is_negation(token):
            continue
        before, after = _content_before(source, i, 2), _content_after(source, i, 2)
        if before and after:
            anchors, where = (before[0], after[0]), "between"
        elif len(after) >= 2:  # "Never use ladders"
            anchors, where = (after[0], after[1]), "before"
        elif len(before) >= 2:  # "... ladders, never"
            anchors, where = (before[1], before[0]), "after"
        else:
            continue
        if _negated_where(anchors, where, other, other_stems) is False:
            return True
    return False


def _negated_where(
    anchors: tuple[str, str], where: Side, tokens: tuple[str, ...], stems: list[str | None]
) -> bool | None:
    """None when ``tokens`` do not hold the anchors close together (in order); else whether
    some such place has a negation where the other text has its own."""
    first, second = anchors
    found_close = False
    for j, found in enumerate(stems):
        if found != first:
            continue
        for k in range(j + 1, min(len(tokens), j + 1 + WINDOW)):
            if stems[k] != second:
                continue
            found_close = True
            region = {
                "between": tokens[j + 1 : k],
                "before": tokens[max(0, j - WINDOW) : j],
                "after": tokens[k + 1 : k + 1 + WINDOW],
            }[where]
            if any(_is_negation(t) for t in region):
                return True
    return False if found_close else None
