"""Words of one meaning made one word, by WordNet's commonest senses: "commence" and
"start" are "begin", "took" is "take", "retained" is "retain".

A question and the sentences that answer it often say a thing in different words ("When did
the agreement *commence*?" / "This Agreement *starts* on 1 April"). Each word is replaced by
the commonest lemma of its commonest sense, so that words sharing that sense meet. Only
words WordNet has seen tagged in running text (SemCor's counts) are replaced, and only of
four letters or more: a rare word, a name, a code or an acronym stays as written. The
tables (``wordnet/``) are derived from WordNet 3.0 by ``bench/build_lexicon.py``; nothing
in them was chosen by looking at an evaluation set.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

TABLES = Path(__file__).resolve().parent / "wordnet"
PARTS_OF_SPEECH = "nvar"  # noun, verb, adjective, adverb
SHORTEST = 4
"""Shorter words stay as written: folded to lower case, they are as often an abbreviation or
an acronym ("LED", "PM", "US") as the word WordNet knows ("led", "pm", "us")."""
# WordNet's rules for an inflected form (its "morphy"): an ending and what replaces it.
_ENDINGS = {
    "n": (
        ("ses", "s"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
        ("s", ""),
    ),
    "v": (
        ("ies", "y"),
        ("es", "e"),
        ("es", ""),
        ("ed", "e"),
        ("ed", ""),
        ("ing", "e"),
        ("ing", ""),
        ("s", ""),
    ),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}


@dataclass(frozen=True, slots=True)
class Sense:
    count: int
    """How often the lemma was seen tagged with its commonest sense."""
    lemma: str
    """That sense's commonest lemma."""


@dataclass(frozen=True, slots=True)
class Lexicon:
    senses: dict[tuple[str, str], Sense]
    """(lemma, part of speech) -> its commonest sense."""
    irregular: dict[tuple[str, str], str]
    """(irregular form, part of speech) -> its lemma ("took", "v" -> "take")."""

    @classmethod
    def read(cls, folder: Path = TABLES) -> Lexicon:
        senses = {}
        for word, pos, count, lemma in _rows(folder / "senses.tsv"):
            senses[(word, pos)] = Sense(int(count), lemma or word)
        irregular = {(form, pos): lemma for form, pos, lemma in _rows(folder / "inflections.tsv")}
        return cls(senses, irregular)

    def lemma(self, word: str, pos: str) -> str | None:
        """``word``'s lemma as a ``pos``, when it is one WordNet has seen tagged."""
        if (word, pos) in self.senses:
            return word
        listed = self.irregular.get((word, pos))
        if listed is not None:
            return listed
        for ending, replacement in _ENDINGS[pos]:
            if word.endswith(ending):
                candidate = word[: -len(ending)] + replacement
                if (candidate, pos) in self.senses:
                    return candidate
        return None

    def concept(self, word: str) -> str:
        """The commonest lemma of the commonest sense of ``word`` (of its parts of speech,
        the one most often seen), or ``word`` itself."""
        best: Sense | None = None
        for pos in PARTS_OF_SPEECH:
            lemma = self.lemma(word, pos)
            if lemma is not None:
                sense = self.senses[(lemma, pos)]
                if best is None or sense.count > best.count:
                    best = sense
        return word if best is None else best.lemma


def _rows(path: Path) -> list[list[str]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if line and not line.startswith("#")]


@cache
def lexicon() -> Lexicon:
    """The lexicon, read once."""
    return Lexicon.read()


def concept(word: str) -> str:
    """``Lexicon.concept`` of a lower-case word of ``SHORTEST`` letters or more; any other
    token as it is (``words.stem``, its one caller, keeps what it found)."""
    if len(word) < SHORTEST or not (word.isalpha() and word.islower() and word.isascii()):
        return word
    return lexicon().concept(word)
