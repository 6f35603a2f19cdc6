"""Words as the offline model compares them: folded, stemmed, and a few word lists."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from docuchat.research.text import STOPWORDS, stem
from docuchat.research.text import words as plain_words

NEGATIONS = frozenset("not no never none nothing neither nor without cannot".split())
NUMBER_WORDS = frozenset(
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty "
    "ninety hundred hundreds thousand thousands million millions billion billions dozen "
    "dozens half quarter twice".split()
)
MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)
# Words that frame a question rather than say what it is about.
FRAMING = frozenset(
    "name named called call kind type sort example term word mean meaning refer refers".split()
)
PRONOUNS = frozenset("it its they them their he him his she her this that these those".split())

TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
DIGIT = re.compile(r"\d")
YEAR = re.compile(r"^(1\d{3}|20\d{2})s?$")
_POSSESSIVE = re.compile(r"['’]s?$")
_WEAK_NEGATION = re.compile(r"\b(or not|may or may not)\b")


def fold(text: str) -> str:
    """Without accents, so that "Hervé" matches "Herve"."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def bare(token: str) -> str:
    """A token lower-cased and without a possessive ending ("Norman's" -> "norman")."""
    return _POSSESSIVE.sub("", token.lower())


def words(text: str) -> list[str]:
    """Lower-cased words without accents or possessive endings."""
    return [_POSSESSIVE.sub("", w) for w in plain_words(fold(text))]


def content(words: Iterable[str]) -> list[str]:
    """The stems of the words that are not stopwords, in order."""
    return [stem(w) for w in words if w not in STOPWORDS]


def stems(text: str) -> set[str]:
    return set(content(words(text)))


def is_key(word: str) -> bool:
    """A word that says what a question is about."""
    return word not in STOPWORDS and word not in FRAMING and len(word) > 1


def negated(text: str) -> bool:
    """The text says "not", "never", "no" ... ("whether or not" does not count)."""
    found = plain_words(_WEAK_NEGATION.sub(" ", text.lower()))
    return any(w in NEGATIONS or w.endswith("n't") for w in found)


def capitalised(text: str) -> list[str]:
    """Bare forms of the capitalised tokens after the first (names, by their look)."""
    return [bare(t) for t in TOKEN.findall(fold(text))[1:] if t[0].isupper()]
