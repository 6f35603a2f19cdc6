"""Small text utilities shared by citation checking and the offline model."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
# A sentence ends at . ! ? (plus closing quotes/brackets and citation markers) followed by space.
_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*(?:\s*\[\d+(?:\s*,\s*\d+)*\])*(?=\s|$)")
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n\s*")
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof st sr jr vs etc e.g i.e fig no vol pp approx inc ltd co jan feb mar "
    "apr jun jul aug sep sept oct nov dec u.s a.d b.c".split()
)

STOPWORDS = frozenset(
    "a about above after again against all am an and any are as at be because been before "
    "being below between both but by can could did do does doing down during each few for "
    "from further had has have having he her here hers herself him himself his how i if in "
    "into is it its itself just me more most my myself no nor not now of off on once only or "
    "other our ours ourselves out over own same she should so some such than that the their "
    "theirs them themselves then there these they this those through to too under until up "
    "very was we were what when where which while who whom why will with would you your yours "
    "yourself yourselves also may might must shall one ones many much us whose upon within "
    "without via per".split()
)
# A pronoun's or an auxiliary's contraction carries no more than its words ("If *I'm* the
# main carer…": no term, and no name for being capitalised), with either apostrophe.
_CONTRACTIONS = (
    "i'm i've i'd i'll we're we've we'd we'll you're you've you'd you'll they're they've "
    "they'd they'll he'd he'll she'd she'll it'll that'll there'll don't doesn't didn't "
    "isn't aren't wasn't weren't can't couldn't won't wouldn't shouldn't hasn't haven't "
    "hadn't mustn't".split()
)
STOPWORDS = STOPWORDS | {c.replace("'", mark) for c in _CONTRACTIONS for mark in "'’"}
FIRST_PERSON = frozenset(w.capitalize() for w in STOPWORDS if w == "i" or w[:2] in ("i'", "i’"))
""""I" and its contractions, capitalised mid-sentence like a name but none."""


NEGATIONS = frozenset("not no never none nothing neither nor without cannot".split())
WEAK_NEGATION = re.compile(r"\b(or not|may or may not)\b")
# Numbers whole ("8.7", "200,000"; a decade, "1980s", is not the year 1980), other words as
# _WORD has them.
_NUMBER = r"\d+0s\b|\d+(?:[.,]\d+)*"
_NUMBERED_WORD = re.compile(rf"{_NUMBER}|[^\W\d_]+(?:['’][^\W_]+)*")
_NUMBER_ONLY = re.compile(_NUMBER)


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A deliberately light suffix stripper: enough to match plural and tense variants."""
    for suffix, keep in (
        ("ies", "y"),
        ("ied", "y"),
        ("ing", ""),
        ("ed", ""),
        ("es", ""),
        ("s", ""),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + keep
    return word


def content_terms(text: str) -> list[str]:
    """Stemmed words that carry meaning (stopwords dropped), in order."""
    return [stem(w) for w in words(text) if w not in STOPWORDS]


def fold(text: str) -> str:
    """Without accents, so that "Hervé" matches "Herve"."""
    if text.isascii():  # nothing to decompose: the common case, at no cost
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def negated(text: str) -> bool:
    """The text says "not", "never", "no" ... ("whether or not" does not count)."""
    found = words(WEAK_NEGATION.sub(" ", text.lower()))
    return any(w in NEGATIONS or w.endswith("n't") for w in found)


def numbered_words(text: str) -> list[str]:
    """Lower-cased words with every number whole and without thousands separators
    ("200,000 people" -> "200000", "people"; "magnitude 8.7" -> "magnitude", "8.7")."""
    found = _NUMBERED_WORD.findall(fold(text).lower())
    return [w.replace(",", "") if _NUMBER_ONLY.fullmatch(w) else w for w in found]


def numbers(text: str) -> frozenset[str]:
    """The numbers of the text, whole and without thousands separators."""
    return frozenset(w for w in numbered_words(text) if is_number(w))


def is_number(word: str) -> bool:
    """A number (or a decade) as ``numbered_words`` has it."""
    return bool(_NUMBER_ONLY.fullmatch(word))


def sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each sentence, trimmed of surrounding whitespace.

    A blank line always ends a sentence (headings and list items stand alone).
    """
    position = 0
    for brk in [*_PARAGRAPH_BREAK.finditer(text), None]:
        end = brk.start() if brk else len(text)
        yield from _sentences(text, position, end)
        position = brk.end() if brk else end


def _sentences(text: str, start: int, stop: int) -> Iterator[tuple[int, int]]:
    for match in _SENTENCE_END.finditer(text, start, stop):
        end = match.end()
        before = text[start : match.start()].split()
        last = before[-1].lower().rstrip(".").lstrip("\"'“‘(") if before else ""
        if match.group(0).startswith(".") and (last in _ABBREVIATIONS or len(last) <= 1):
            continue
        yield from _trimmed(text, start, end)
        start = end
    yield from _trimmed(text, start, stop)


def _trimmed(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        yield start, end
