"""Whether a sentence addresses a question: it carries the question's subject and states a
fact of the kind asked for.

For one part of a question (``questions.Part``) and one sentence read in its passage
(``sentences.Sentence``: the sentence, its neighbours, its document's title and heading), a
sentence *addresses* the part when

- it names what the part is about: every name, date and code of the part is in the sentence
  or around it, or its document says it is about it without its saying so (an e-mail's To
  line, a contract's "the Supplier"; ``research.subjects``); ``names``; a name one slip
  away, "Carslbad" for "Carlsbad", counts;
- it or its neighbours name the thing asked for when a value alone does not ("the *account*
  number"; ``head``; a heading above it does not count: "Executive summary" names no chief
  executive);
- it and its surroundings hold at least half the part's terms (a term borrowed from
  another clause or the previous question counts half; ``coverage``), or a quarter when it
  is close to the question in meaning (the embeddings' cosine; ``Thresholds``);
- it states a fact of the kind asked for that the question does not already give: a date, a
  duration, an amount, a person… (``kinds``; no condition when the question names no kind).

Every judgement also carries a learned score over those signals (``research.addressing``:
the probability that the sentence states the answer), which its reasons give; with
``Thresholds.gates`` off, the score alone decides instead of the conditions above.

The same test serves the offline model (it declines when no sentence passes it) and the
research agent, which reports for every model's citations whether the cited sentence
addresses the question.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from docuchat.research.addressing import Signals, Verdict, weigh
from docuchat.research.citations import Verification
from docuchat.research.kinds import VALUE_NOUNS, Found, Kind, find
from docuchat.research.questions import Asked, Part, meant
from docuchat.research.reader import Reader
from docuchat.research.rows import header_and_row
from docuchat.research.sentences import Passage, Sentence, sentences, stating
from docuchat.research.similarity import SentenceSimilarity
from docuchat.research.text import numbered_words
from docuchat.research.words import NUMBER_WORDS, stem, stems
from docuchat.store.base import ChunkRecord


@dataclass(frozen=True, slots=True)
class Thresholds:
    """How much of the question a sentence must carry (see ``bench/qa_offline.py`` for how
    they were chosen)."""

    coverage: float = 0.67
    """The share of the part's terms (by weight: 1, half for a borrowed term) that a sentence
    and its surroundings must hold (0.67: more than two thirds)..."""
    close_coverage: float = 0.2
    """...or this share, when the sentence is close to the question in meaning:"""
    close: float = 0.4
    """the cosine similarity of their embeddings (all-MiniLM-L6-v2) is at least this."""
    words_only: float = 0.34
    """Without an embedder (nothing tells what is close in meaning), the share of the part's
    terms a sentence must hold."""
    gates: bool = True
    """A sentence addresses the part when it passes every gate (names, head, negation,
    coverage, kind, another subject); False: when its learned score reaches the fitted
    threshold instead (``research.addressing``), and the offline model quotes the
    best-scored. The gates are the default: the score alone declines far more, SQuAD's
    answerable questions too (docs/readme/offline_eval.md, "A learned decision")."""


THRESHOLDS = Thresholds()
BY_SCORE = Thresholds(gates=False)
"""The learned score alone decides whether a sentence addresses a part."""
TRUST = BY_SCORE
"""Whether an answer's citations address the question, as the research agent tells every
answer's reader (``Answer.presentation``): by the learned score, which carries over to other
writers' documents where the gates let near misses through (docs/readme/offline_eval.md,
"Trust by the learned score"), with the reader's logit for a cited sentence that passes
every gate (``assess_answer``'s ``reader``). The offline model still quotes what the gates
choose, so a quote the score finds unlikely to answer is shown as a related passage, not as
an answer."""
_NEGATION = re.compile(
    r"\b(?:not|never|no|none|nothing|neither|nor|cannot|without)\b|n['’]t\b", re.IGNORECASE
)
_NUM = r"\d+(?:\.\d+)?"
_RANGE = re.compile(
    rf"\bbetween\D{{0,3}}(?P<low>{_NUM})\D{{0,12}}\band\D{{0,3}}(?P<high>{_NUM})"
    rf"|\b(?:up to|below|under|less than|no more than|at most)\D{{0,3}}(?P<upto>{_NUM})"
    rf"|\b(?:over|above|more than|at least|exceeding)\D{{0,3}}(?P<over>{_NUM})"
)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_QUARTER = re.compile(r"\b(first|second|third|fourth) quarter\b", re.IGNORECASE)
SLIP_LENGTH = 5
VALUE_STEMS = frozenset(stem(w) for w in VALUE_NOUNS)


@dataclass(frozen=True, slots=True)
class Elsewhere:
    """A sentence of another document that holds most of a part's terms but not one of its
    names (asked of Brightline, it is Acme's schedule that states it): the documents say
    this of another subject."""

    text: str
    coverage: float
    names: tuple[str, ...]
    """The part's names (and figures) it lacks."""


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
    similarity: float | None = None
    covered: bool = True
    """The sentence holds enough of the part's terms (``Thresholds``)."""
    unnegated: bool = False
    """The question asks what is not so, and the sentence says nothing is not."""
    elsewhere: Elsewhere | None = None
    """A sentence of another document that holds more of the part's terms for another
    subject: this one, which holds fewer, is a near miss."""
    verdict: Verdict | None = None
    """The learned score (``research.addressing``), over ``signals``."""
    signals: Signals | None = None
    gated: bool = True
    """The gates decided ``addresses`` (``Thresholds.gates``), not the score."""
    corroborated: bool = False
    """It addresses a part of a comparison or a two-part question because another part's
    citation does by the score and this one passes every gate (``CitedRelevance.
    corroborated``)."""

    @property
    def score(self) -> float:
        return 0.0 if self.verdict is None else self.verdict.score

    @property
    def held(self) -> float:
        """The share of the part's terms the sentence itself holds (``held_share``)."""
        return 0.0 if self.signals is None else self.signals.held

    @property
    def passes_gates(self) -> bool:
        """It names the part's subject and figures, mentions what is asked for, holds enough
        of its terms, states a fact of the kind asked for and is outdone by no other
        document: every gate (``Thresholds.gates``), whatever decided ``addresses``."""
        return self.elsewhere is None and _passes(
            self.missing_names,
            self.missing_head,
            self.unnegated,
            self.covered,
            self.kind,
            self.found,
        )

    def reasons(self) -> list[str]:
        """Why it addresses the part or not, in words."""
        said = []
        if self.corroborated:
            said.append(
                "passes every gate and states a figure of the kind its part asks for, beside"
                " another part of the question that addresses it"
            )
        if self.missing_names:
            said.append(f"does not name {', '.join(self.missing_names)}")
        if self.missing_head:
            said.append(f"does not mention {' '.join(self.missing_head)}")
        if self.unnegated:
            said.append("says nothing is not so, where the question asks what is not")
        if self.elsewhere is not None:
            other = self.elsewhere
            said.append(
                f"another document holds more of the question's terms ({other.coverage:.0%}) "
                f"but of another subject (not {', '.join(other.names)}): “{_short(other.text)}”"
            )
        if not self.covered:
            close = "" if self.similarity is None else f", similarity {self.similarity:.2f}"
            said.append(f"holds {self.coverage:.0%} of the question's terms{close}")
        if self.found is not None:
            article = "an" if self.found.kind[0] in "aeiou" else "a"
            said.append(f"states {article} {self.found.kind}: {self.found.text}")
        elif self.kind is not None:
            said.append(f"states no {self.kind}")
        if self.verdict is not None:
            said.append(self.verdict.said(decides=not self.gated))
        return said

    def as_dict(self) -> dict[str, Any]:
        return {
            "addresses": self.addresses,
            "score": round(self.score, 3),
            "coverage": round(self.coverage, 3),
            "similarity": None if self.similarity is None else round(self.similarity, 3),
            "matched": list(self.matched),
            "answer": None if self.found is None else self.found.text,
            "missing_names": list(self.missing_names),
            "missing_head": " ".join(self.missing_head) or None,
            "reasons": self.reasons(),
        }


def judge(
    part: Part,
    sentence: Sentence,
    question: str,
    quoted: str | None = None,
    similarity: float | None = None,
    limits: Thresholds = THRESHOLDS,
    elsewhere: Elsewhere | None = None,
    read: float | None = None,
) -> Addressing:
    """``sentence`` against ``part``; ``quoted``: the text that states the fact, when more
    than the sentence (a list's introduction quoted with its item); ``similarity``: the
    cosine of the sentence's and the question's embeddings, when an embedder is at hand;
    ``elsewhere``: the sentence of another document that says most of the part of another
    subject (``other_subject``), which a sentence holding fewer of its terms does not
    outdo; ``read``: the reader's logit for the two (``research.reader``), when read."""
    stated = quoted or sentence.text
    around = sentence.surroundings | _quarters(stated)
    missing = tuple(sorted(_missing_names(part, around | sentence.subjects)))
    missing += tuple(f for f in sorted(part.figures) if not _figure_stated(f, sentence, stated))
    unsaid = [w for w in part.head if not _said(w, sentence.nearby)]
    missing_head = part.head if unsaid else ()
    # "Who did not design it?" is not answered by who did.
    unnegated = part.negated and not _NEGATION.search(stated)
    counted = counted_terms(part)
    total = sum(counted.values()) or 1.0
    matched = tuple(t for t in counted if t in around)
    coverage = sum(counted[t] for t in matched) / total
    # A sheet row's embedding is mostly its header's: closeness says little about the row.
    close = (
        similarity is not None and similarity >= limits.close and not header_and_row(sentence.text)
    )
    found = None
    if part.kind is not None:
        found = find(part.kind, stated, question, part.counted)
    if similarity is None:
        covered = coverage >= limits.words_only
    else:
        covered = coverage >= limits.coverage or (close and coverage >= limits.close_coverage)
    signals = Signals(
        coverage,
        held_share(part, sentence, quoted),
        similarity,
        len(missing) / (len(part.names) + len(part.figures) or 1),
        covered,
        close,
        bool(missing_head),
        part.kind is not None,
        found is not None,
        unnegated,
        sheet_row=header_and_row(sentence.text) is not None,
        reader=read,
    )
    verdict = weigh(signals)
    passes = _passes(missing, missing_head, unnegated, covered, part.kind, found)
    judged = Addressing(
        passes if limits.gates else verdict.addresses,
        coverage,
        found,
        part.kind,
        missing,
        missing_head,
        matched,
        similarity,
        covered,
        unnegated,
        verdict=verdict,
        signals=signals,
        gated=limits.gates,
    )
    return outdone(judged, elsewhere)


def _passes(
    missing: Sequence[str],
    missing_head: Sequence[str],
    unnegated: bool,
    covered: bool,
    kind: Kind | None,
    found: Found | None,
) -> bool:
    """Every gate but ``outdone``'s: no name or figure missing, what is asked for mentioned,
    no negation unanswered, enough of the terms held, a fact of the kind asked for found."""
    return (
        not missing
        and not missing_head
        and not unnegated
        and covered
        and (kind is None or found is not None)
    )


def outdone(judged: Addressing, elsewhere: Elsewhere | None) -> Addressing:
    """``judged`` once ``elsewhere`` is known (``other_subject``): a sentence holding fewer of
    the part's terms than another document's sentence about another subject is a near miss
    (a gate; for the score, a signal: by how much fewer). Applied to a judgement already
    made, so that nothing is judged twice for it."""
    if elsewhere is None or elsewhere.coverage <= judged.coverage or judged.signals is None:
        return judged
    signals = replace(judged.signals, elsewhere_margin=elsewhere.coverage - judged.coverage)
    verdict = weigh(signals)
    addresses = False if judged.gated else verdict.addresses
    return replace(
        judged, addresses=addresses, elsewhere=elsewhere, verdict=verdict, signals=signals
    )


def held_share(part: Part, s: Sentence, stated: str | None = None) -> float:
    """The weighted share of the part's terms that the sentence itself holds, or its title
    and heading, or what it states with them (``stated``: a table row's cells named by its
    header, a list item with its introduction; not its neighbours: each of them may be a
    sentence to choose)."""
    counted = counted_terms(part)
    held = s.stems | s.setting
    if stated and stated != s.text:  # a sentence's own stems are ``s.stems``
        held |= stems(stated)
    return sum(w for t, w in counted.items() if t in held) / (sum(counted.values()) or 1.0)


def counted_terms(part: Part) -> dict[str, float]:
    """The part's terms that a sentence's coverage counts, with their weights: not a word
    that names a value of the kind asked for ("the *limit*"), which is the kind's to find."""
    # one that qualifies the thing asked for is not: "the *share* price".
    valued = VALUE_STEMS - set(part.asked_for[:-1])
    return {t: w for t, w in part.terms.items() if part.kind is None or t not in valued}


def other_subject(
    judged: Iterable[tuple[Sentence, Addressing]], title: str, limits: Thresholds = THRESHOLDS
) -> Elsewhere | None:
    """Of the sentences read (each judged without this test), the one of a document other
    than ``title`` that holds at least ``limits.coverage`` of the part's terms, and most,
    but lacks one of its names or figures: what the documents say of another subject. A
    sentence of the same document that lacks a name may still speak of it in other words
    ("the island" for Cyprus); another document is about something else."""
    found = [
        (j.coverage, s.text, j.missing_names)
        for s, j in judged
        if s.title != title and j.missing_names and j.coverage >= limits.coverage
    ]
    if not found:
        return None
    coverage, text, names = max(found, key=lambda f: f[0])
    return Elsewhere(text, coverage, names)


def _short(text: str, words: int = 16) -> str:
    said = text.split()
    return " ".join(said[:words]) + ("…" if len(said) > words else "")


def numbered(text: str) -> str:
    """The text's words with every number whole and without thousands separators."""
    return " ".join(numbered_words(text))


def _quarters(text: str) -> frozenset[str]:
    """The quarters a text names in words, as codes: "the third quarter" is Q3."""
    return frozenset(f"q{_ORDINALS[m.group(1).lower()]}" for m in _QUARTER.finditer(text))


def _figure_stated(figure: str, sentence: Sentence, stated: str) -> bool:
    """The figure is in the sentence or its neighbours, or within a range the sentence
    states ("between £1,000 and £5,000" holds a claim of £3,000)."""
    if figure in sentence.numbers:
        return True
    value = float(figure.removesuffix("s"))  # "the 1980s"
    return any(low <= value <= high for low, high in _ranges(stated))


def _ranges(text: str) -> list[tuple[float, float]]:
    """The ranges a text states: "between A and B", "A to B", "A-B", "up to B", "over A"."""
    found = []
    for match in _RANGE.finditer(numbered(text)):
        low, high = match.group("low"), match.group("high")
        if match.group("upto"):
            found.append((float("-inf"), float(match.group("upto"))))
        elif match.group("over"):
            found.append((float(match.group("over")), float("inf")))
        elif low and high:
            found.append((float(low), float(high)))
    return found


def _said(word: str, said: frozenset[str]) -> bool:
    """``word`` is among ``said``, or its plural or singular is."""
    return bool({word, word + "s", word.removesuffix("s")} & said)


def _missing_names(part: Part, said: frozenset[str]) -> set[str]:
    """The part's names that ``said`` lacks: a name of one word, or of a longer name its
    first word or more than one word ("Brightline Insight" may be "Brightline"; "Brackley
    Bridge" is not "Larkspur Bridge")."""
    missing: set[str] = set()
    for name in part.named:
        lacking = missing_names(name, said)
        if name[0] in lacking or len(lacking) > 1:
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


# ── an answer's citations against the question ──────────────────────────────
@dataclass(frozen=True, slots=True)
class CitedRelevance:
    """One citation of an answer against the question's parts."""

    n: int
    addresses: bool
    """The cited sentence addresses some part of the question."""
    parts: tuple[int, ...]
    """The parts it addresses (their positions in the question)."""
    judged: Addressing
    """Its judgement against the part it addresses best."""
    passing: tuple[tuple[int, Addressing], ...] = ()
    """The parts it does not address but whose every gate it passes, stating a figure of
    the kind asked for, with its judgement against each (what ``corroborated`` may make it
    address)."""
    corroborating: tuple[int, ...] = ()
    """The parts it addresses only by ``corroborated``."""

    def corroborated(self) -> CitedRelevance:
        """This citation addressing the parts it passes every gate for, as it does in a
        question of several parts (a comparison, a two-part question) one part of which
        another citation addresses by the score: the parts corroborate each other (each
        part's own kind of fact, a figure, in a sentence that names the part's subject and
        holds its terms), where the score judging each alone may find one unlikely (a row,
        a sentence that leaves its subject to its document's title)."""
        if not self.passing:
            return self
        judged = self.judged
        if not self.addresses:
            judged = replace(self.passing[0][1], addresses=True, corroborated=True)
        added = tuple(i for i, _ in self.passing)
        parts = tuple(sorted({*self.parts, *added}))
        return replace(
            self, addresses=True, parts=parts, judged=judged, passing=(), corroborating=added
        )


@dataclass(frozen=True, slots=True)
class PartRelevance:
    """One part of the question: which verified citations address it, and otherwise the
    sentence read that comes nearest, and why it does not."""

    part: Part
    cited: tuple[int, ...]
    nearest: tuple[int, str, Addressing] | None = None
    """When no verified citation addresses the part: (citation number, sentence, judgement)
    of the sentence of the opened passages that holds most of the part's terms."""
    corroborated: bool = False
    """Its citations address it only because another part's do
    (``CitedRelevance.corroborated``)."""

    def as_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "asks": self.part.text,
            "kind": self.part.kind,
            "subject": self.part.subject or None,
            "addressed_by": list(self.cited),
        }
        if self.corroborated:
            found["corroborated"] = (
                "its quote passes every gate and states a figure of the kind it asks for,"
                " beside another part of the question that the score finds addressed"
            )
        if self.nearest is not None:
            n, text, judged = self.nearest
            found["nearest"] = {"n": n, "sentence": text, "why_not": judged.reasons()}
        return found


@dataclass(frozen=True, slots=True)
class AnswerRelevance:
    """Whether an answer's verified citations address the question, part by part."""

    citations: Mapping[int, CitedRelevance]
    parts: tuple[PartRelevance, ...]

    @property
    def addresses(self) -> bool:
        """Every part of the question is addressed by a verified citation."""
        return all(p.cited for p in self.parts)

    @property
    def addressed_parts(self) -> int:
        return sum(bool(p.cited) for p in self.parts)

    def as_dict(self) -> dict[str, Any]:
        return {
            "addresses": self.addresses,
            "parts_addressed": self.addressed_parts,
            "parts": [p.as_dict() for p in self.parts],
        }


def assess_answer(
    asked: Asked,
    checked: Verification,
    passages: Mapping[int, ChunkRecord],
    similarity: SentenceSimilarity | None = None,
    limits: Thresholds = THRESHOLDS,
    reader: Reader | None = None,
) -> AnswerRelevance:
    """Each sentence of the checked answer that cites a passage, against each part of the
    question: the passage sentence its check quoted, judged in its passage. ``passages``:
    every passage the run opened, by citation number; ``reader``: with ``similarity``, reads
    each cited sentence that passes every gate of a part against it (its logit one more
    signal of the score, ``addressing.BY_READING``)."""
    read = {n: _by_id(sentences([_passage(n, c)])) for n, c in passages.items()}
    judging = _Judging(asked, similarity, limits, read, reader if similarity is not None else None)
    citations: dict[int, CitedRelevance] = {}
    for claim in checked.claims:
        for cited in claim.citations:
            n = cited.n
            sentence = _sentence_of(cited.quote, read[n])
            if sentence is not None:
                citations[n] = judging.cited(n, sentence, read[n], citations.get(n))
    verified = {c.n: c.verified for c in checked.citations}
    if len(asked.parts) > 1 and any(c.addresses and verified.get(n) for n, c in citations.items()):
        citations = {n: c.corroborated() for n, c in citations.items()}
    parts = []
    for i, part in enumerate(asked.parts):
        by = tuple(n for n, c in citations.items() if verified.get(n) and i in c.parts)
        lent = bool(by) and all(i in citations[n].corroborating for n in by)
        parts.append(PartRelevance(part, by, None if by else judging.nearest(part, read), lent))
    return AnswerRelevance(citations, tuple(parts))


def _passage(n: int, chunk: ChunkRecord) -> Passage:
    return Passage(n, chunk.id, chunk.text, chunk.title, chunk.file)


@dataclass(slots=True)
class _Judging:
    asked: Asked
    similarity: SentenceSimilarity | None
    limits: Thresholds
    read: Mapping[int, Mapping[int, Sentence]]
    """Every passage the run opened: its sentences by id."""
    reader: Reader | None = None
    """Reads the cited sentences that pass every gate (``cited``), no others."""
    _plain: dict[int, list[tuple[Sentence, Addressing]]] = field(default_factory=dict)

    def judge(
        self, part: Part, s: Sentence, read: Mapping[int, Sentence], reading: bool = False
    ) -> Addressing:
        """``s`` against ``part``; ``reading``: read by the reader too when it passes every
        gate (the score with the reader's logit was fitted on such sentences alone:
        ``bench/train_reader.py``; one that fails a gate is weighed by its signals)."""
        stated, asks = stating(s, read), meant(part, self.asked)
        close = None if self.similarity is None else self.similarity(asks, [stated])[0]
        elsewhere = other_subject(self._judged(part), s.title, self.limits)
        judged = judge(part, s, self.asked.text, stated, close, self.limits, elsewhere)
        if not (reading and self.reader is not None and judged.passes_gates):
            return judged
        logit = self.reader([(asks, stated)])[0]
        return judge(part, s, self.asked.text, stated, close, self.limits, elsewhere, logit)

    def _judged(self, part: Part) -> list[tuple[Sentence, Addressing]]:
        """Every sentence read against ``part``, by words alone (for ``other_subject``)."""
        key = id(part)
        if key not in self._plain:
            self._plain[key] = [
                (s, judge(part, s, self.asked.text, stating(s, of), None, self.limits))
                for of in self.read.values()
                for s in of.values()
            ]
        return self._plain[key]

    def cited(
        self, n: int, s: Sentence, read: Mapping[int, Sentence], earlier: CitedRelevance | None
    ) -> CitedRelevance:
        """Citation ``n`` quoting ``s``, with what ``earlier`` sentences citing it
        addressed (a passage may answer two parts, quoted twice)."""
        judged = [self.judge(part, s, read, reading=True) for part in self.asked.parts]
        parts = tuple(i for i, j in enumerate(judged) if j.addresses)
        passing = tuple(
            (i, j)
            for i, j in enumerate(judged)
            if i not in parts and j.passes_gates and j.found is not None and _figured(j.found)
        )
        best = judged[parts[0]] if parts else max(judged, key=lambda j: j.coverage)
        if earlier is not None:
            parts = tuple(sorted(set(parts) | set(earlier.parts)))
            best = earlier.judged if earlier.addresses or not best.addresses else best
            passing = tuple((i, j) for i, j in (*earlier.passing, *passing) if i not in parts)
        return CitedRelevance(n, bool(parts), parts, best, passing)

    def nearest(
        self, part: Part, read: Mapping[int, Mapping[int, Sentence]]
    ) -> tuple[int, str, Addressing] | None:
        """The sentence read that holds most of the part's terms, itself and around it
        (judged by words alone: the similarity of every sentence read would cost an
        embedding each)."""
        plain = _Judging(self.asked, None, self.limits, self.read, _plain=self._plain)
        candidates = [
            (n, s, plain.judge(part, s, sentences_of))
            for n, sentences_of in read.items()
            for s in sentences_of.values()
        ]
        if not candidates:
            return None

        def nearness(c: tuple[int, Sentence, Addressing]) -> tuple[bool, float, int]:
            _, s, judged = c
            return judged.addresses, judged.coverage, len(part.terms.keys() & s.stems)

        n, s, judged = max(candidates, key=nearness)
        return n, s.text, judged


def _figured(found: Found) -> bool:
    """The fact states a figure, in digits or in words ("45 days", "two weeks"), not only a
    word of its kind ("annual", "the next working day"): enough to stand beside another
    part's answer (a comparison's other subject, a two-part question's other part)."""
    return any(c.isdigit() for c in found.text) or bool(
        set(found.text.lower().split()) & (NUMBER_WORDS | {"one"})
    )


def _by_id(found: Sequence[Sentence]) -> dict[int, Sentence]:
    return {s.id: s for s in found}


def _sentence_of(quote: str, read: Mapping[int, Sentence]) -> Sentence | None:
    """The passage's sentence that a citation quotes (a quote and a sentence may be cut a
    little differently at a heading or a list)."""
    quoted = " ".join(quote.split())
    overlapping = []
    for s in read.values():
        text = " ".join(s.text.split())
        if text == quoted:
            return s
        if text in quoted or quoted in text:
            overlapping.append((len(text), s))
    # the longest: a quote of clause "11.1 Broadwater may…" also holds the heading's "11."
    return max(overlapping, key=lambda found: found[0])[1] if overlapping else None


__all__ = [
    "BY_SCORE",
    "THRESHOLDS",
    "Addressing",
    "AnswerRelevance",
    "CitedRelevance",
    "Elsewhere",
    "PartRelevance",
    "Thresholds",
    "assess_answer",
    "counted_terms",
    "held_share",
    "judge",
    "missing_names",
    "other_subject",
    "outdone",
]
