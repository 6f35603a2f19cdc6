"""Whether a sentence addresses a part of a question, decided by a score, not by gates.

``relevance.judge`` reads the signals (``Signals``: the share of the part's terms held, the
similarity in meaning, the names missing, whether it states a fact of the kind asked
for...); a logistic regression weighs them (``Weights``, fitted on the open parts of the
business set by ``bench/fit_addressing.py``) into a probability that the sentence states
the answer, and the sentence addresses the part when that probability reaches the
threshold chosen with the weights. Three regressions: one for a model that reads meaning
(the similarity of embeddings is a signal), one for words alone, and one for the sentences
an answer cites, which the reader also reads (``research.reader``; its logit a signal,
fitted by ``bench/train_reader.py``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from docuchat.research import addressing_weights as fitted
from docuchat.research import reader_weights as read

TOP_SIGNALS = 3
"""How many of the signals that weighed most the reasons name."""
SAID = {
    "coverage": "the question's terms it holds",
    "held": "the question's terms in the sentence itself",
    "similarity": "closeness in meaning",
    "names_missing": "the share of the question's names it lacks",
    "name_missing": "it lacks a name of the question",
    "covered": "it holds enough of the question's terms",
    "close": "it is close in meaning",
    "head_missing": "it lacks the word for what is asked",
    "kind_found": "it states a fact of the kind asked for",
    "kind_not_found": "it states no fact of the kind asked for",
    "unnegated": "the question asks what is not so, it does not say",
    "elsewhere": "another document says more of another subject",
    "elsewhere_margin": "how much more another document says of another subject",
    "sheet_row": "a sheet's row",
    "reader": "the reader's logit",
}
"""Each signal in words (the keys of ``Signals.values``)."""


@dataclass(frozen=True, slots=True)
class Signals:
    """What ``relevance.judge`` reads of one sentence against one part of a question."""

    coverage: float
    """The weighted share of the part's terms in the sentence and its surroundings."""
    held: float
    """The weighted share of them in the sentence itself (or its title and heading)."""
    similarity: float | None
    """The cosine of the sentence's and the question's embeddings (None: no embedder)."""
    names_missing: float
    """The share of the part's names and figures the sentence and its surroundings lack."""
    covered: bool
    """It and its surroundings hold enough of the part's terms (``relevance.Thresholds``)."""
    close: bool
    """Its similarity reaches ``Thresholds.close`` (never for a sheet's row)."""
    head_missing: bool
    kind_asked: bool
    kind_found: bool
    unnegated: bool
    elsewhere_margin: float = 0.0
    """How much more of the part's terms another document's sentence about another
    subject holds (0: none does)."""
    sheet_row: bool = False
    """A spreadsheet row (its header's line above it): its closeness in meaning is mostly
    its header's."""
    reader: float | None = None
    """The reader's logit that the sentence states the answer (``research.reader``; None:
    not read, as every sentence but the ones an answer cites)."""

    def values(self) -> dict[str, float]:
        """The regression's inputs by name (no similarity without an embedder)."""
        found = {
            "coverage": self.coverage,
            "held": self.held,
            "names_missing": self.names_missing,
            "name_missing": float(self.names_missing > 0),
            "covered": float(self.covered),
            "head_missing": float(self.head_missing),
            "kind_found": float(self.kind_found),
            "kind_not_found": float(self.kind_asked and not self.kind_found),
            "unnegated": float(self.unnegated),
            "elsewhere": float(self.elsewhere_margin > 0),
            "elsewhere_margin": self.elsewhere_margin,
            "sheet_row": float(self.sheet_row),
        }
        if self.similarity is not None:
            found["similarity"] = self.similarity
            found["close"] = float(self.close)
            if self.reader is not None:
                found["reader"] = self.reader
        return found


@dataclass(frozen=True, slots=True)
class Weights:
    """One fitted regression: a weight per signal, the bias, and the threshold on the
    probability from which a sentence addresses the part."""

    weights: Mapping[str, float]
    bias: float
    threshold: float


BY_MEANING = Weights(fitted.BY_MEANING, fitted.BY_MEANING_BIAS, fitted.BY_MEANING_THRESHOLD)
BY_WORDS = Weights(fitted.BY_WORDS, fitted.BY_WORDS_BIAS, fitted.BY_WORDS_THRESHOLD)
BY_READING = Weights(read.BY_READING, read.BY_READING_BIAS, read.BY_READING_THRESHOLD)
"""BY_MEANING's signals and the reader's logit (``bench/train_reader.py``)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    score: float
    """The probability that the sentence states the answer."""
    addresses: bool
    """The score reaches the threshold."""
    threshold: float
    weighed: tuple[tuple[str, float], ...]
    """The signals' contributions to the score's log-odds, largest in size first."""

    def said(self, decides: bool = True) -> str:
        """The score (against its threshold when it ``decides``) and the signals that weighed
        most, in words."""
        top = ", ".join(f"{SAID[name]} {value:+.1f}" for name, value in self.weighed[:TOP_SIGNALS])
        against = f" {'≥' if self.addresses else '<'} {self.threshold:.2f}" if decides else ""
        return f"score {self.score:.2f}{against} (weighed most: {top})"


def weights_for(signals: Signals) -> Weights:
    if signals.similarity is None:
        return BY_WORDS
    return BY_MEANING if signals.reader is None else BY_READING


def weigh(signals: Signals, weights: Weights | None = None) -> Verdict:
    """The probability that the sentence states the answer, and whether it addresses the
    part; ``weights``: by default the regression fitted for the signals at hand."""
    chosen = weights or weights_for(signals)
    contributions = _contributions(signals.values(), chosen.weights)
    logit = chosen.bias + sum(contributions.values())
    score = 1.0 / (1.0 + math.exp(-logit))
    weighed = sorted(((n, v) for n, v in contributions.items() if v), key=lambda c: -abs(c[1]))
    return Verdict(score, score >= chosen.threshold, chosen.threshold, tuple(weighed))


def _contributions(values: Mapping[str, float], weights: Mapping[str, float]) -> dict[str, float]:
    return {name: weights[name] * value for name, value in values.items() if name in weights}


__all__ = [
    "BY_MEANING",
    "BY_READING",
    "BY_WORDS",
    "SAID",
    "Signals",
    "Verdict",
    "Weights",
    "weigh",
    "weights_for",
]
