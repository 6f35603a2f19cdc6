"""The business evaluation set, end to end: cited answers, parts, abstentions, wrong answers.

The part's documents are ingested as they are (the app's own parsing and chunking) into a
SQLite store of their own, cached under a folder named after their content (or a temporary
one), and embedded there. Every question goes through the real research agent; a question
with a history is asked as a conversation: the earlier questions first, each answer
replayed as history for the next, as ``docuchat chat`` does. Only the last answer is scored.

Scoring reads nothing but the research agent's ``Answer`` (its text, whether it declined,
its citations' document, quote span, passage and ``verified``), through
:func:`answer_facts`, so it does not depend on which model answered or how. Per gold part:

- *found*: one of the part's gold answers occurs in the answer (SQuAD normalisation, whole
  words, citation markers dropped, currency signs set apart);
- *quoted*: a citation that counts (verified) points into the part's gold document and its
  quote's span overlaps one of the part's gold quotes;
- *cited*: such a citation's passage (the chunk the model opened) overlaps a gold quote.

A question with one gold part (a plain fact, a follow-up) is *right* when the part is found
and quoted. One with several parts (two-part, comparison) is right when every part is found
and cited: the ``Answer`` reports one quote per cited passage (the sentence that best
supports the claims citing it), so two parts read in the same passage cannot both be its
quote. An unanswerable question is right when the answer is not presented as an answer: it
declines (``Answer.abstained``), or the research agent judged that none of its citations
addresses the question and shows its quotes as related passages (``Answer.presentation``
``not_an_answer``; reported apart as ``related``). An answer presented as one and not right
is a *wrong answer presented as an answer*; among them, those shown as answering part of the
question only (``Answer.presentation`` ``partial``: the answer says which parts the
documents do not address) are reported apart too (``wrong_shown_as_partial``). A quote shown
as bearing on an answerable question (a counting citation) that overlaps none of its gold
quotes is *stray*; ``with_stray_quote`` is the share of answers presented to answerable
questions that show one (an unrelated second source, say; a document that states the fact
twice where the gold names one place would count too, so it is an upper bound).
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docuchat.corpus.ingest import DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP, Progress, ingest_file
from docuchat.embeddings import Embedder
from docuchat.evals.business_set import CATEGORIES, KINDS, EvalSet, Evidence, Kind, SetQuestion
from docuchat.evals.harness import IndexStatus, index_folder, mean, percentile, research_agent
from docuchat.evals.qa import contains_answer, plain_answer
from docuchat.models.base import Model
from docuchat.research import Answer, ResearchAgent
from docuchat.research.conversation import history_messages, turn_of
from docuchat.research.relevance import THRESHOLDS, Thresholds
from docuchat.store import Store, open_store
from docuchat.store.accounts import Turn

OWNER = "business-set"
_CURRENCY = re.compile(r"[$£€¥]")
_INDEX_VERSION = 5  # bump when what the cached index holds changes meaning (5: running headers)


@dataclass(frozen=True, slots=True)
class Goal:
    figure: str
    bound: float
    at_most: bool = False

    def __str__(self) -> str:
        return f"{self.figure} {'≤' if self.at_most else '≥'} {self.bound:.2f}"


GOALS: Mapping[str, Goal] = {
    "fact": Goal("right", 0.90),
    "two_part": Goal("right", 0.70),
    "comparison": Goal("right", 0.70),
    "unanswerable": Goal("declined", 0.80),
    "overall": Goal("wrong", 0.05, at_most=True),
}
"""Issue 10's goals (for the sealed part, default settings), by row of the report."""


# ── what is scored: the answer, read once ───────────────────────────────────
@dataclass(frozen=True, slots=True)
class CitedSpan:
    doc_id: str
    start: int
    """The quote's span in the document's text: [start, end)."""
    end: int
    passage: tuple[int, int]
    """The cited passage's span (the chunk the model opened), which holds the quote."""
    verified: bool
    addresses: bool | None = None
    """Whether the cited text addresses the question; None while the research agent does
    not say (then a verified citation counts)."""

    @property
    def counts(self) -> bool:
        return self.verified and self.addresses is not False


@dataclass(frozen=True, slots=True)
class AnswerFacts:
    """What the scorer reads of an answer."""

    text: str
    """The answer without its citation markers."""
    abstained: bool
    citations: tuple[CitedSpan, ...]
    presented: bool
    """Shown as an answer: it does not decline, and its quotes are not shown as related
    passages only (``Answer.presentation`` ``not_an_answer``: none addresses the question)."""
    partial: bool = False
    """Shown as an answer to part of the question: some parts addressed, the others said
    not to be (``Answer.presentation`` ``partial``)."""


def answer_facts(answer: Answer, passages: Mapping[str, tuple[int, int]]) -> AnswerFacts:
    """The only place the scorer reads the research agent's ``Answer``; ``passages`` gives
    the span of each cited chunk. Each citation says whether its quote addresses the
    question (``Answer.addresses``, judged by the research layer for every model)."""
    return AnswerFacts(
        text=plain_answer(answer.answer),
        abstained=answer.abstained,
        citations=tuple(
            CitedSpan(
                c.doc_id,
                c.start,
                c.end,
                passages[c.chunk_id],
                c.verified,
                answer.addresses(c.n),
            )
            for c in answer.citations
        ),
        presented=answer.presented,
        partial=answer.presentation == "partial",
    )


def passage_spans(store: Store, owner: str, answer: Answer) -> dict[str, tuple[int, int]]:
    """The span in its document of each passage the answer cites."""
    chunks = store.get_chunks(owner, [c.chunk_id for c in answer.citations])
    return {chunk.id: (chunk.start, chunk.end) for chunk in chunks}


# ── scoring ─────────────────────────────────────────────────────────────────
@dataclass(frozen=True, slots=True)
class PartScore:
    found: bool
    quoted: bool
    """A counting citation's quote overlaps a gold quote."""
    cited: bool
    """A counting citation's passage overlaps a gold quote (always so when quoted)."""


@dataclass(frozen=True, slots=True)
class QuestionScore:
    question: SetQuestion
    answer: str
    abstained: bool
    parts: tuple[PartScore, ...]
    """One per gold part (none for an unanswerable question)."""
    latency_ms: float
    presented: bool
    """Shown as an answer (``AnswerFacts.presented``)."""
    partial: bool = False
    """Shown as an answer to part of the question (``AnswerFacts.partial``)."""
    stray: int = 0
    """Counting citations whose quote overlaps none of the question's gold quotes: quotes
    shown as bearing on the question that bear on none of its parts."""

    @property
    def related(self) -> bool:
        """Its quotes were shown as related passages, not as an answer."""
        return not self.abstained and not self.presented

    @property
    def right(self) -> bool:
        if not self.question.answerable:
            return not self.presented
        if len(self.parts) == 1:
            return self.parts[0].found and self.parts[0].quoted
        return all(p.found and p.cited for p in self.parts)

    @property
    def wrong_as_answer(self) -> bool:
        """Presented as an answer, and not right."""
        return self.presented and not self.right

    @property
    def wrong_as_partial(self) -> bool:
        """A wrong answer shown as answering part of the question only."""
        return self.wrong_as_answer and self.partial


def score(
    question: SetQuestion, facts: AnswerFacts, doc_ids: Mapping[str, str], latency_ms: float
) -> QuestionScore:
    """One answer against the question's gold; ``doc_ids`` maps file names to stored ids."""

    def quotes(c: CitedSpan, e: Evidence) -> bool:
        """The citation's quote overlaps the gold quote, in its document."""
        return c.doc_id == doc_ids[e.document] and _overlap((c.start, c.end), (e.start, e.end))

    parts = []
    for part in question.parts:
        citing = [
            (c, e)
            for c in facts.citations
            for e in part.evidence
            if c.counts and c.doc_id == doc_ids[e.document]
        ]
        parts.append(
            PartScore(
                found=any(contains_gold(facts.text, gold) for gold in part.answers),
                quoted=any(quotes(c, e) for c, e in citing),
                cited=any(_overlap(c.passage, (e.start, e.end)) for c, e in citing),
            )
        )
    gold = [e for part in question.parts for e in part.evidence]
    stray = sum(1 for c in facts.citations if c.counts and not any(quotes(c, e) for e in gold))
    return QuestionScore(
        question,
        facts.text,
        facts.abstained,
        tuple(parts),
        latency_ms,
        facts.presented,
        facts.partial,
        stray,
    )


def contains_gold(text: str, gold: str) -> bool:
    """``gold`` occurs in ``text`` as whole words, both normalised as SQuAD does, with a
    currency sign set apart first: "US$96,500" holds "96,500" (SQuAD's normalisation
    would glue it into "us96500")."""
    return contains_answer(_CURRENCY.sub(" ", text), _CURRENCY.sub(" ", gold))


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


# ── the report ──────────────────────────────────────────────────────────────
@dataclass(frozen=True, slots=True)
class BusinessReport:
    results: tuple[QuestionScore, ...]
    index: IndexStatus | None = None

    def to_dict(self) -> dict[str, Any]:
        """Per kind, per unanswerable category, overall, latency, then each question's
        outcome by id (no texts: the sealed part's report gives nothing of it away)."""
        results = self.results
        answered = [r for r in results if r.presented]
        answered_answerable = [r for r in answered if r.question.answerable]
        latencies = sorted(r.latency_ms for r in results)
        return {
            "kinds": {kind: _kind_figures(kind, _of_kind(results, kind)) for kind in KINDS},
            "unanswerable_by_category": {
                category: _declined(r for r in results if r.question.category == category)
                for category in CATEGORIES
            },
            "overall": {
                "n": len(results),
                "right": mean(r.right for r in results),
                "answered": len(answered),
                "related": mean(r.related for r in results),
                "wrong_of_answered": mean(r.wrong_as_answer for r in answered),
                "wrong_of_all": mean(r.wrong_as_answer for r in results),
                "wrong_shown_as_partial": mean(r.wrong_as_partial for r in results),
                "with_stray_quote": mean(r.stray > 0 for r in answered_answerable),
            },
            "latency_ms": {
                "p50": round(percentile(latencies, 50), 1),
                "p95": round(percentile(latencies, 95), 1),
            },
            "questions": [
                {
                    "id": r.question.id,
                    "right": r.right,
                    "abstained": r.abstained,
                    "related": r.related,
                    "partial": r.partial,
                    "found": [p.found for p in r.parts],
                    "quoted": [p.quoted for p in r.parts],
                    "cited": [p.cited for p in r.parts],
                    "stray": r.stray,
                    "latency_ms": round(r.latency_ms, 1),
                }
                for r in results
            ],
        }


def _of_kind(results: Sequence[QuestionScore], kind: Kind) -> list[QuestionScore]:
    return [r for r in results if r.question.kind == kind]


def _kind_figures(kind: Kind, results: Sequence[QuestionScore]) -> dict[str, Any]:
    if kind == "unanswerable":
        return {**_declined(results), "wrong_as_answer": mean(r.wrong_as_answer for r in results)}
    return {
        "n": len(results),
        "right": mean(r.right for r in results),
        "found": mean(all(p.found for p in r.parts) for r in results),
        "quoted": mean(all(p.quoted for p in r.parts) for r in results),
        "cited": mean(all(p.cited for p in r.parts) for r in results),
        "declined": mean(not r.presented for r in results),
        "wrong_as_answer": mean(r.wrong_as_answer for r in results),
        "wrong_shown_as_partial": mean(r.wrong_as_partial for r in results),
    }


def _declined(results: Iterable[QuestionScore]) -> dict[str, Any]:
    """Not presented as an answer: declined, or its quotes shown as related passages only."""
    items = list(results)
    return {
        "n": len(items),
        "declined": mean(not r.presented for r in items),
        "related": mean(r.related for r in items),
    }


# ── running it ──────────────────────────────────────────────────────────────
def index_key(eval_set: EvalSet) -> str:
    """The cached index's folder name: a digest of the documents (names and bytes) and of
    how they are chunked."""
    digest = hashlib.sha256(
        f"v{_INDEX_VERSION} chunks {DEFAULT_CHUNK_SIZE}/{DEFAULT_OVERLAP}\n".encode()
    )
    for path in eval_set.documents:
        digest.update(f"{path.name}\n".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return f"business-{digest.hexdigest()[:16]}"


def ingest_documents(store: Store, owner: str, paths: Sequence[Path]) -> tuple[dict[str, str], int]:
    """Each file through the app's ingestion: file name (an attachment's as ``attached_name``
    gives it) to stored id, and how many were new."""
    doc_ids, added = {}, 0
    for path in paths:
        for stored in ingest_file(store, owner, path).ingested:
            name = path.name + stored.path.removeprefix(str(path))  # "x.eml › y.csv"
            doc_ids[name] = stored.doc_id
            added += stored.status != "unchanged"
    return doc_ids, added


async def ask(agent: ResearchAgent, question: SetQuestion) -> tuple[Answer, float]:
    """The question's answer and its latency in ms; its history is asked first, as a
    conversation (each earlier answer replayed to the next question)."""
    turns: list[Turn] = []
    for earlier in question.history:
        turns.append(turn_of(await agent.ask(earlier, history=history_messages(turns, len(turns)))))
    started = time.perf_counter()
    answer = await agent.ask(question.text, history=history_messages(turns, len(turns)))
    return answer, (time.perf_counter() - started) * 1000


async def evaluate_set(
    eval_set: EvalSet,
    model: Model,
    *,
    embedder: Embedder | None = None,
    cache_root: Path | None = None,
    limit: int | None = None,
    progress: Progress | None = None,
    thresholds: Thresholds = THRESHOLDS,
) -> BusinessReport:
    """Index the part's documents (in a store under ``cache_root`` that later runs reuse, or
    in a temporary folder), then ask the first ``limit`` questions (all by default)."""
    with index_folder(index_key(eval_set), cache_root) as folder:
        store = open_store(folder / "set.db")
        try:
            doc_ids, added = ingest_documents(store, OWNER, eval_set.documents)
            agent, embedded = research_agent(store, OWNER, model, embedder, progress, thresholds)
            questions = eval_set.questions[:limit] if limit else eval_set.questions
            results = []
            for done, question in enumerate(questions, 1):
                answer, latency = await ask(agent, question)
                facts = answer_facts(answer, passage_spans(store, OWNER, answer))
                results.append(score(question, facts, doc_ids, latency))
                if progress:
                    progress(done, len(questions), "asking")
            index = IndexStatus(folder / "set.db" if cache_root else None, added, embedded)
            return BusinessReport(tuple(results), index)
        finally:
            store.close()


__all__ = [
    "GOALS",
    "OWNER",
    "AnswerFacts",
    "BusinessReport",
    "CitedSpan",
    "Goal",
    "PartScore",
    "QuestionScore",
    "answer_facts",
    "ask",
    "contains_gold",
    "evaluate_set",
    "index_key",
    "ingest_documents",
    "passage_spans",
    "score",
]
