"""The answer: for each part of the question, the best sentence that addresses it, quoted
verbatim with its citation; the abstention when no sentence addresses any part.

Per part (``research.questions``): the sentences read are ranked by ``evidence.relevance``,
and the best-ranked one that *addresses* the part (``research.relevance.judge``: it names
the part's subject and states a fact of the kind asked for; or, with ``Thresholds.gates``
off, its learned score says it likely states the answer, and the best-scored is chosen) is
quoted, with a second source
from another passage when one addresses the part too and scores nearly as well. A part that
no sentence addresses is said to be unanswered; when no part is addressed the answer is
``ABSTAIN``. A comparison's quotes are labelled with their subject.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from docuchat.research.offline.evidence import Reading, read, relevance
from docuchat.research.offline.question import Question
from docuchat.research.questions import Asked, Part
from docuchat.research.relevance import (
    THRESHOLDS,
    Addressing,
    Elsewhere,
    Thresholds,
    judge,
    other_subject,
    outdone,
)
from docuchat.research.sentences import (
    SENTENCE_CLOSED,
    Passage,
    Sentence,
    introduction,
    sentences,
)
from docuchat.research.similarity import SentenceSimilarity, for_the_score
from docuchat.research.text import fold
from docuchat.research.words import TOKEN, bare, stem, stems

# A paragraph of its own, so that no quote's citation is checked against the prefix's words.
PREFIX = "From the documents (extractive):\n\n"
ABSTAIN = "The documents do not say."
ANSWER_WORDS = 60
LONG_ANSWER_WORDS = 150
LONG_ANSWER_SENTENCES = 5
SECOND_SOURCE_MARGIN = 3.0
MIN_FRAGMENT_WORDS = 8
HELD_WEIGHT = 6.0
"""When the gates decide (``Thresholds.gates``), of the sentences that address a part the one
chosen has the best rank plus this times the share of the part's terms it holds itself
(``relevance.held_share``): the ranking, fitted on SQuAD, may put first a sentence that
addresses the part by its neighbours' words (a longer one, or one closer in meaning) over
the sentence that says it ("payment terms": "Invoices are *payable* within 45 days", not
the fee rise beside it). When the learned score decides, the best-scored is chosen."""


Quote = tuple[Sentence, int | None]
"""A sentence to quote, whole (None) or its best so many words."""


@dataclass(frozen=True, slots=True)
class PartAnswer:
    """One part of the question against what was read."""

    part: Part
    reading: Reading
    scores: dict[int, float]
    ranked: list[Sentence]
    chosen: Sentence | None
    """The sentence that addresses the part (``HELD_WEIGHT``; None: none does)."""
    judged: Addressing | None
    """The chosen sentence's judgement, else the best-ranked sentence's."""
    quotes: list[Quote] = field(default_factory=list)

    @property
    def best(self) -> Sentence:
        return self.ranked[0]


@dataclass(frozen=True, slots=True)
class Assessment:
    asked: Asked
    parts: list[PartAnswer]


def assess(
    asked: Asked,
    passages: Sequence[Passage],
    similarity: SentenceSimilarity | None = None,
    limits: Thresholds = THRESHOLDS,
) -> Assessment | None:
    """Every part of the question against the passages' sentences; None when there is
    nothing to read or nothing to look for."""
    found = sentences(passages)
    if not found or not any(p.terms for p in asked.parts):
        return None
    together = asked.as_one()
    if together is not None:
        # Subjects named together are answered together by a sentence naming them all.
        whole = Assessment(
            together, [_assess_part(together.parts[0], together, found, similarity, limits)]
        )
        if whole.parts[0].chosen is not None:
            return whole
    if asked.across:
        return _across(asked, found, similarity, limits)
    parts = [_assess_part(part, asked, found, similarity, limits) for part in asked.parts]
    return Assessment(asked, parts)


def _across(
    asked: Asked,
    found: list[Sentence],
    similarity: SentenceSimilarity | None,
    limits: Thresholds,
) -> Assessment:
    """A comparison across the documents read: the question asked of each document alone,
    labelled with its title; the documents whose sentences address it, or the question
    unanswered when none does."""
    part = asked.parts[0]
    titles = dict.fromkeys(s.title for s in found)
    answered = []
    for title in titles:
        own = replace(part, subject=title)
        mine = [s for s in found if s.title == title]
        answered.append(_assess_part(own, asked, mine, similarity, limits))
    addressed = [a for a in answered if a.chosen is not None]
    if len(addressed) < 2:  # a comparison of one document is an answer as any other
        return Assessment(asked, [_assess_part(part, asked, found, similarity, limits)])
    return Assessment(replace(asked, parts=tuple(a.part for a in addressed)), addressed)


def _assess_part(
    part: Part,
    asked: Asked,
    found: list[Sentence],
    similarity: SentenceSimilarity | None,
    limits: Thresholds,
) -> PartAnswer:
    question = Question.of(part, asked)
    reading = read(question, found, similarity)
    scores = {s.id: relevance(s, reading) for s in found}
    ranked = sorted(found, key=lambda s: scores[s.id], reverse=True)
    by_id = {s.id: s for s in found}
    # The score deciding reads only cosines it was fitted on (``for_the_score``).
    cosines = limits.gates or for_the_score(similarity) is not None
    judgements = Judgements.of(found, reading, limits, cosines)
    addressing = [(s, j) for s in ranked if (j := judgements.judged(s)).addresses]
    if addressing:
        own = _own_words(part, asked)
        # A comparison's subject first by a sentence holding its own words; then, with the
        # gates, the best rank plus the share held, else the best score (of equals, the
        # best-ranked).
        s, judged = max(
            addressing,
            key=lambda c: (
                own <= c[0].stems | c[0].setting,
                scores[c[0].id] + HELD_WEIGHT * c[1].held if limits.gates else c[1].score,
            ),
        )
        quotes = (
            _pick_more(s, ranked, judgements)
            if asked.wants_more
            else _pick(s, ranked, scores, reading, by_id, judgements)
        )
        return PartAnswer(part, reading, scores, ranked, s, judged, quotes)
    best = ranked[0]
    return PartAnswer(part, reading, scores, ranked, None, judgements.judged(best))


def _own_words(part: Part, asked: Asked) -> frozenset[str]:
    """The stems that tell a comparison's subject from the others ("secondary" of
    "secondary carer" against "primary carer"): a sentence that holds them itself says
    the subject's fact, where one that has them only beside it may say another's."""
    if not part.subject:
        return frozenset()
    others = {w for p in asked.parts if p is not part for w in stems(p.subject)}
    return frozenset(stems(part.subject) - others)


@dataclass(slots=True)
class Judgements:
    """Every sentence read, judged against the part once; the other-subject test
    (``relevance.other_subject``) applied on top, worked out once per document."""

    plain: dict[int, tuple[Sentence, Addressing]]
    limits: Thresholds
    _elsewhere: dict[str, Elsewhere | None] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        found: Sequence[Sentence],
        reading: Reading,
        limits: Thresholds,
        cosines: bool = True,
    ) -> Judgements:
        """``cosines``: the judgements read the reading's similarities (else words alone)."""
        part, asked = reading.question.part, reading.question.asked
        similarity = reading.similarity if cosines else {}
        plain = {
            s.id: (s, judge(part, s, asked, reading.stated[s.id], similarity.get(s.id), limits))
            for s in found
        }
        return cls(plain, limits)

    def judged(self, s: Sentence) -> Addressing:
        """``s`` against the part, not addressing it when another document says more of the
        part of another subject."""
        if s.title not in self._elsewhere:
            judged = self.plain.values()
            self._elsewhere[s.title] = other_subject(judged, s.title, self.limits)
        return outdone(self.plain[s.id][1], self._elsewhere[s.title])


def compose_answer(
    asked: Asked,
    passages: Sequence[Passage],
    similarity: SentenceSimilarity | None = None,
    limits: Thresholds = THRESHOLDS,
) -> str:
    """The quotes that address the question's parts with their citations, a word for the
    parts that none addresses, or the abstention when none addresses any part."""
    judged = assess(asked, passages, similarity, limits)
    return ABSTAIN if judged is None else quoted_answer(judged)


def quoted_answer(judged: Assessment) -> str:
    done = [p for p in judged.parts if p.chosen is not None]
    if not done:
        return ABSTAIN
    labelled = judged.asked.comparison or judged.asked.across
    paragraphs, used = [], set()
    for part in done:
        fresh = [(s, w) for s, w in part.quotes if s.id not in used]
        used |= {s.id for s, _ in part.quotes}
        if not fresh:
            continue
        quoted = " ".join(_quote(s, part.reading, w) for s, w in fresh)
        paragraphs.append(f"{part.part.subject}: {quoted}" if labelled else quoted)
    missing = [_unanswered(p.part) for p in judged.parts if p not in done]
    if judged.asked.comparison and missing:
        # A comparison lacking a subject's fact cannot be made: the answer says so first
        # (it declines), then quotes what the documents say of the other subjects.
        return "\n\n".join([*missing, PREFIX.strip(), *paragraphs])
    return PREFIX + "\n\n".join([*paragraphs, *missing])


def _unanswered(part: Part) -> str:
    if part.subject:
        return f"The documents do not say for {part.subject}."
    return f"The documents do not answer: “{part.text.strip().rstrip('?')}?”"


def _pick(
    chosen: Sentence,
    ranked: Sequence[Sentence],
    scores: dict[int, float],
    reading: Reading,
    by_id: Mapping[int, Sentence],
    judgements: Judgements,
) -> list[Quote]:
    """The chosen sentence (with its list's introduction after it when it is an item; with
    the item the question names when it introduces a list), then a second source: the best sentence
    of another passage that addresses the part too and scores nearly as well, cut to the
    words around the question's terms when it does not fit the word budget."""
    intro = introduction(chosen, by_id)
    if intro is not None:
        return [(chosen, None), (intro, None)]
    item = _asked_item(chosen, ranked, reading)
    if item:
        return [(chosen, None), (item, None)]
    left = ANSWER_WORDS - len(chosen.words)
    close = [
        s
        for s in ranked
        if s.n != chosen.n
        and scores[chosen.id] - scores[s.id] <= SECOND_SOURCE_MARGIN
        and not _overlap(s, chosen)
    ]
    elsewhere = [s for s in close if judgements.judged(s).addresses]
    if elsewhere and len(elsewhere[0].words) <= left and introduction(elsewhere[0], by_id) is None:
        return [(chosen, None), (elsewhere[0], None)]
    if elsewhere and left >= MIN_FRAGMENT_WORDS:
        return [(chosen, None), (elsewhere[0], left)]
    return [(chosen, None)]


def _pick_more(chosen: Sentence, ranked: Sequence[Sentence], judgements: Judgements) -> list[Quote]:
    """For a question that asks for a list or a summary: the chosen sentence, then the next
    best that address the part too, up to five and 150 words."""
    picked, used = [chosen], len(chosen.words)
    for other in ranked:
        if len(picked) == LONG_ANSWER_SENTENCES:
            break
        fits = used + len(other.words) <= LONG_ANSWER_WORDS
        fresh = fits and not any(_overlap(other, c) for c in picked)
        if fresh and judgements.judged(other).addresses:
            picked.append(other)
            used += len(other.words)
    return [(s, None) for s in picked]


def _asked_item(best: Sentence, ranked: Sequence[Sentence], reading: Reading) -> Sentence | None:
    """When the chosen sentence is part of a list or table (its introduction, say), the item
    that names what the question asks and the sentence does not ("London | £160" under
    "…these limits:" or under the table's header): of the list's sentences, one that holds
    a missing name, else the one that holds the rarest missing terms."""
    missing = reading.weights.keys() - best.stems

    def held(s: Sentence) -> tuple[bool, float]:
        found = missing & s.stems
        return bool(found & reading.names), sum(reading.weights[t] for t in found)

    listed = [s for s in ranked if s.id in best.items and missing & s.stems]
    return max(listed, key=held, default=None)


def _overlap(a: Sentence, b: Sentence) -> bool:
    """The same sentence, also when read twice from overlapping passages (maybe cut short)."""
    return a.text in b.text or b.text in a.text


def _quote(sentence: Sentence, reading: Reading, words: int | None) -> str:
    """The sentence in quotes with its citation, whole or its best ``words`` words."""
    if words is not None:
        return _quote_part(sentence, reading, words)
    text = sentence.text.rstrip()
    if not SENTENCE_CLOSED.search(text):
        # A list's introduction or a table row: "…" keeps the next quote apart.
        text = text.removesuffix(":") + "…"
    return f"“{text}” [{sentence.n}]"


def _quote_part(sentence: Sentence, reading: Reading, budget: int) -> str:
    """The ``budget`` words of the sentence that hold the most of the question's terms (by
    weight), centred on them, quoted verbatim with "…" where the sentence goes on."""
    tokens = list(TOKEN.finditer(sentence.text))
    terms = [stem(bare(fold(t.group()))) for t in tokens]
    size = min(budget, len(tokens))
    matched = [i for i, t in enumerate(terms) if t in reading.weights] or [0]
    focus = (matched[0] + matched[-1]) / 2

    def key(start: int) -> tuple[float, float]:
        held = set(terms[start : start + size])
        return sum(reading.weights.get(t, 0.0) for t in held), -abs(start + size / 2 - focus)

    start = max(range(len(tokens) - size + 1), key=key)
    end = start + size
    cut_from = tokens[start].start() if start else 0
    cut_to = tokens[end - 1].end() if end < len(tokens) else len(sentence.text)
    text = sentence.text[cut_from:cut_to].rstrip().removesuffix(":")
    opening = "…" if start else ""
    closing = "" if end == len(tokens) and SENTENCE_CLOSED.search(text) else "…"
    return f"“{opening}{text}{closing}” [{sentence.n}]"
