"""Words as relevance and the offline model compare them: folded, stemmed, and a few word lists."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from docuchat.research.lexicon import concept
from docuchat.research.text import STOPWORDS, fold
from docuchat.research.text import stem as research_stem
from docuchat.research.text import words as plain_words

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
    "name named called call kind type sort example term word mean meaning refer refers "
    # verbs that carry little of their own: "what do I *need* to…", "how much do we *get*"
    "need needs get gets got have has want wants "
    # and the words that ask about the documents themselves: "what do the *documents say*"
    "summarise summarize summary describe explain outline tell say says said document "
    "documents mention mentions".split()
)
PRONOUNS = frozenset("it its they them their he him his she her this that these those".split())

TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_POSSESSIVE = re.compile(r"['’]s?$")
_EXTENSION = re.compile(r"\.\w{1,5}$")
# (ending, the shortest root left, what replaces it): "payment" -> "pay", "termination" ->
# "terminat" (as "terminate" stems), "payable" -> "pay".
_DERIVED = (("ation", 4, "at"), ("ment", 3, ""), ("able", 3, ""), ("ible", 4, ""))
_NOT_DERIVED = frozenset("com docu mo ele seg ce frag gar pig ta ca cap sta fa ena ci".split())


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The research stemmer's stem of the word's commonest sense (``lexicon.concept``: "took"
    is "take", "commence" and "start" are "begin"), without a final "e", so that "base" and
    "bases", "measure" and "measured" meet; and without the endings that make a noun or an
    adjective of a verb, so that "pay", "payment" and "payable", "terminate" and
    "termination" meet."""
    found = research_stem(concept(word))
    for ending, least, keep in _DERIVED:
        root = found[: -len(ending)]
        if found.endswith(ending) and len(root) >= least and root not in _NOT_DERIVED:
            found = root + keep
            break
    return found[:-1] if found.endswith("e") and len(found) > 3 else found


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


def naming(title: str, file: str) -> str:
    """A document's title and its file's name as the words its owner named it with
    ("quarrington-supply-agreement.docx" -> "quarrington supply agreement")."""
    return " ".join([title, *words(_EXTENSION.sub("", file))])


def is_key(word: str) -> bool:
    """A word that says what a question is about."""
    return word not in STOPWORDS and word not in FRAMING and len(word) > 1
