"""Question answering on SQuAD 2.0: cited answers and abstentions, end to end.

Each article becomes one plain-text document, its paragraphs in order and
separated by blank lines, so that every paragraph has an exact character span
in the stored text. The articles go into a SQLite store of their own, kept in
a folder named after their content and the chunking settings (or a temporary
one), and embedded there: a second run on the same file finds both and embeds
nothing. Every question goes through the real research agent (agent mode).

For answerable questions:

- ``answer_match``: a gold answer occurs in the answer, both normalised as the
  SQuAD script does (lower case; punctuation, articles and extra whitespace
  dropped), as a sequence of whole words;
- ``citation_match``: a *verified* citation's quote overlaps the gold
  paragraph's span;
- ``f1``: SQuAD token F1 of the answer (citation markers dropped) against the
  best-matching gold answer.

For unanswerable ones, ``abstained``: the answer has no verified citation,
that is, it asserts nothing from the documents. Per question, of either kind:
answer length in words, tool calls, model calls, prompt (input) tokens, and
latency (the whole ``ask``, wall clock).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from docuchat.corpus.ingest import DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP, Progress, ingest_file
from docuchat.corpus.parse import parse_bytes
from docuchat.embeddings import Embedder
from docuchat.errors import ConfigError
from docuchat.evals.harness import IndexStatus, index_folder, mean, percentile, research_agent
from docuchat.models.base import Model
from docuchat.research import Answer, ResearchAgent
from docuchat.research.citations import Citation
from docuchat.research.relevance import THRESHOLDS, Thresholds
from docuchat.store import Store, open_store

OWNER = "squad"

_MARKER = re.compile(r"\s*\[\d+(?:\s*,\s*\d+)*\]")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_UNSAFE_IN_FILE_NAME = re.compile(r"[^\w ,.()'-]+")
_INDEX_VERSION = 1  # bump when what the cached index holds changes meaning


# ── the data ────────────────────────────────────────────────────────────────
@dataclass(frozen=True, slots=True)
class SquadArticle:
    title: str
    paragraphs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SquadQuestion:
    id: str
    text: str
    answers: tuple[str, ...]
    """Gold answer texts; empty for an unanswerable question."""
    article: int
    paragraph: int

    @property
    def answerable(self) -> bool:
        return bool(self.answers)


@dataclass(frozen=True, slots=True)
class SquadDataset:
    articles: tuple[SquadArticle, ...]
    questions: tuple[SquadQuestion, ...]


def load_squad(path: str | Path) -> SquadDataset:
    """Read a SQuAD 2.0 JSON file; ConfigError if it cannot be read or is not in that format."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        articles, questions = [], []
        for a, article in enumerate(data["data"]):
            paragraphs = article["paragraphs"]
            title = str(article.get("title") or f"Article {a + 1}").replace("_", " ")
            texts = tuple(" ".join(str(p["context"]).split()) for p in paragraphs)
            articles.append(SquadArticle(title, texts))
            for p, paragraph in enumerate(paragraphs):
                for qa in paragraph["qas"]:
                    gold = [] if qa.get("is_impossible") else qa["answers"]
                    answers = tuple(str(g["text"]) for g in gold)
                    questions.append(
                        SquadQuestion(str(qa["id"]), str(qa["question"]), answers, a, p)
                    )
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from exc
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"{path} is not a SQuAD 2.0 file: {type(exc).__name__}: {exc}") from exc
    empty = [a.title for a in articles if not a.paragraphs or not all(a.paragraphs)]
    if empty or not questions:
        raise ConfigError(f"{path} has no questions or an article without text: {empty}")
    return SquadDataset(tuple(articles), tuple(questions))


# ── the documents ───────────────────────────────────────────────────────────
@dataclass(frozen=True, slots=True)
class IngestedArticle:
    doc_id: str
    paragraph_spans: tuple[tuple[int, int], ...]
    """(start, end) of each paragraph in the stored document text."""
    added: bool = True
    """False when the store already held the article (a cached index)."""


def ingest_articles(
    store: Store, owner: str, articles: Sequence[SquadArticle], folder: Path
) -> list[IngestedArticle]:
    """Write each article as a text file into ``folder`` and ingest it as one document."""
    ingested = []
    for number, article in enumerate(articles, 1):
        name = _UNSAFE_IN_FILE_NAME.sub("_", article.title)[:80].strip() or "article"
        path = folder / f"{number:03d} {name}.txt"
        data = "\n\n".join(article.paragraphs).encode()
        path.write_bytes(data)
        blocks = parse_bytes(data, path.name).blocks
        if len(blocks) != len(article.paragraphs):
            raise ConfigError(f"article {article.title!r}: its paragraphs did not survive parsing")
        (stored,) = ingest_file(store, owner, path).ingested
        spans = tuple((b.start, b.end) for b in blocks)
        ingested.append(IngestedArticle(stored.doc_id, spans, stored.status != "unchanged"))
    return ingested


def index_key(dataset: SquadDataset) -> str:
    """The cached index's folder name: a digest of the articles and of how they are
    chunked, so that other articles or new chunking get a fresh index."""
    digest = hashlib.sha256(
        f"v{_INDEX_VERSION} chunks {DEFAULT_CHUNK_SIZE}/{DEFAULT_OVERLAP}\n".encode()
    )
    for article in dataset.articles:
        digest.update(json.dumps([article.title, *article.paragraphs]).encode())
    return f"squad-{digest.hexdigest()[:16]}"


# ── scoring ─────────────────────────────────────────────────────────────────
def normalize_answer(text: str) -> str:
    """SQuAD's normalisation: lower case, no punctuation, no articles, single spaces.

    Punctuation is every Unicode punctuation character (the SQuAD script drops
    only ASCII ones), so that curly quotes around a quoted answer hide nothing.
    """
    kept = "".join(c for c in text.lower() if not unicodedata.category(c).startswith("P"))
    return " ".join(_ARTICLES.sub(" ", kept).split())


def token_f1(prediction: str, gold: str) -> float:
    """SQuAD's token F1 of two texts after normalisation."""
    predicted, expected = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not predicted or not expected:
        return float(predicted == expected)
    common = sum((Counter(predicted) & Counter(expected)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return 2 * precision * recall / (precision + recall)


def contains_answer(text: str, gold: str) -> bool:
    """``gold`` occurs in ``text`` as a sequence of whole words, both normalised."""
    expected = normalize_answer(gold)
    return bool(expected) and f" {expected} " in f" {normalize_answer(text)} "


@dataclass(frozen=True, slots=True)
class QuestionResult:
    question: SquadQuestion
    answer: str
    abstained: bool
    answer_match: bool
    citation_match: bool
    f1: float
    answer_words: int
    tool_calls: int
    model_calls: int
    prompt_tokens: int
    latency_ms: float
    presented: bool
    """Shown as an answer (``Answer.presented``)."""


def score_answer(
    question: SquadQuestion, answer: Answer, article: IngestedArticle, latency_ms: float
) -> QuestionResult:
    """One answer against the gold: every run of the answer counts (a fallback's too)."""
    text = plain_answer(answer.answer)
    runs = [r for r in (answer.failed_run, answer.run) if r is not None]
    return QuestionResult(
        question=question,
        answer=answer.answer,
        abstained=answer.verified_count == 0,
        answer_match=any(contains_answer(text, gold) for gold in question.answers),
        citation_match=cites_gold(question, answer.citations, article),
        f1=max((token_f1(text, gold) for gold in question.answers), default=0.0),
        answer_words=len(text.split()),
        tool_calls=sum(r.usage.tool_calls for r in runs),
        model_calls=sum(len(r.usage.model_calls) for r in runs),
        prompt_tokens=sum(r.usage.input_tokens for r in runs),
        latency_ms=latency_ms,
        presented=answer.presented,
    )


def plain_answer(answer: str) -> str:
    """The answer without its citation markers."""
    return _MARKER.sub("", answer).strip()


def cites_gold(
    question: SquadQuestion, citations: Iterable[Citation], article: IngestedArticle
) -> bool:
    """A verified citation's quote overlaps the question's gold paragraph."""
    start, end = article.paragraph_spans[question.paragraph]
    return any(
        c.verified and c.doc_id == article.doc_id and c.start < end and start < c.end
        for c in citations
    )


# ── the report ──────────────────────────────────────────────────────────────
@dataclass(frozen=True, slots=True)
class QAReport:
    results: tuple[QuestionResult, ...]
    index: IndexStatus | None = None

    def where(self, keep: Callable[[QuestionResult], bool]) -> QAReport:
        """The report of a subset of the questions (one article, say)."""
        return QAReport(tuple(r for r in self.results if keep(r)), self.index)

    def to_dict(self) -> dict[str, Any]:
        answerable = [r for r in self.results if r.question.answerable]
        unanswerable = [r for r in self.results if not r.question.answerable]
        latencies = sorted(r.latency_ms for r in self.results)
        return {
            "answerable": {
                "n": len(answerable),
                "answer_match": mean(r.answer_match for r in answerable),
                "citation_match": mean(r.citation_match for r in answerable),
                "presented": mean(r.presented for r in answerable),
                "citation_match_presented": mean(
                    r.citation_match and r.presented for r in answerable
                ),
                "f1": mean(r.f1 for r in answerable),
                "answer_words": mean(r.answer_words for r in answerable),
            },
            "unanswerable": {
                "n": len(unanswerable),
                "abstained": mean(r.abstained for r in unanswerable),
                "presented": mean(r.presented for r in unanswerable),
            },
            "per_question": {
                "tool_calls": mean(r.tool_calls for r in self.results),
                "model_calls": mean(r.model_calls for r in self.results),
                "prompt_tokens": mean(r.prompt_tokens for r in self.results),
                "answer_words": mean(r.answer_words for r in self.results),
            },
            "latency_ms": {
                "p50": round(percentile(latencies, 50), 1),
                "p95": round(percentile(latencies, 95), 1),
            },
        }


# ── running it ──────────────────────────────────────────────────────────────
async def ask_all(
    agent: ResearchAgent,
    questions: Sequence[SquadQuestion],
    ingested: Sequence[IngestedArticle],
    progress: Progress | None = None,
) -> QAReport:
    """Ask the questions one after another and score each answer."""
    results = []
    for done, question in enumerate(questions, 1):
        started = time.perf_counter()
        answer = await agent.ask(question.text)
        latency = (time.perf_counter() - started) * 1000
        results.append(score_answer(question, answer, ingested[question.article], latency))
        if progress:
            progress(done, len(questions), "asking")
    return QAReport(tuple(results))


async def evaluate(
    dataset: SquadDataset,
    model: Model,
    *,
    embedder: Embedder | None = None,
    cache_root: Path | None = None,
    limit: int | None = None,
    progress: Progress | None = None,
    thresholds: Thresholds = THRESHOLDS,
) -> QAReport:
    """Index every article (in a store under ``cache_root`` that later runs reuse, or in
    a temporary folder), then ask the first ``limit`` questions (all by default). With an
    embedder, search is hybrid, and the offline model also ranks the sentences it reads by
    the embedder's similarity."""
    with index_folder(index_key(dataset), cache_root) as folder:
        store = open_store(folder / "qa.db")
        try:
            ingested = ingest_articles(store, OWNER, dataset.articles, folder)
            agent, embedded = research_agent(store, OWNER, model, embedder, progress, thresholds)
            questions = dataset.questions[:limit] if limit else dataset.questions
            report = await ask_all(agent, questions, ingested, progress)
            added = sum(article.added for article in ingested)
            index = IndexStatus(folder / "qa.db" if cache_root else None, added, embedded)
            return replace(report, index=index)
        finally:
            store.close()


__all__ = [
    "OWNER",
    "IndexStatus",
    "IngestedArticle",
    "QAReport",
    "QuestionResult",
    "SquadArticle",
    "SquadDataset",
    "SquadQuestion",
    "ask_all",
    "cites_gold",
    "contains_answer",
    "evaluate",
    "index_key",
    "ingest_articles",
    "load_squad",
    "normalize_answer",
    "plain_answer",
    "score_answer",
    "token_f1",
]
