"""Fit the decision whether a sentence addresses a part of a question (``research.addressing``).

``python bench/fit_addressing.py [--write]`` asks every TRAINING question (evals/business/dev
whole; the work halves of formats and fresh, ``business_halves``) through the real research
agent with the default offline model, once with the embedder and once with words alone,
and takes, at the moment the model answers, every sentence of the passages it opened
against every part of the question, with the signals ``relevance.judge`` reads. A sentence
is a positive example when it holds a gold answer of its part inside a gold quote, a
negative one otherwise (every sentence read for an unanswerable question is negative).

``--squad FILE``: SQuAD's training paragraphs (every third paragraph is held out) are
training questions too, a second domain: a sentence there is positive when it is in the
question's paragraph and holds a gold answer, and the two domains weigh the same in the fit
(each SQuAD sentence counts the business sentences' number over SQuAD's).

Per setting it fits a logistic regression (L2, Newton's method, numpy) and chooses the
threshold on the probability that maximises right minus wrong on the business training
questions, simulated as the model decides with the score alone (``--decision score``): a
part is answered with its best-scored sentence scoring above the threshold, and a question
is declined when none of its parts is. It reports, per training part (and SQuAD's training
questions), that decision beside the gates choosing by rank (the model's quotes) and the
default: the gates' quote, presented as an answer only when its score reaches the
threshold (``relevance.TRUST``; otherwise shown as a related passage, which for an
unanswerable question is as good as a decline). ``--write`` writes the weights into
src/docuchat/research/addressing_weights.py. The measure halves, SQuAD's held-out
paragraphs and the parts still sealed (sealed4 to sealed13) are never read. Collected
examples are kept in ``.cache/addressing-examples`` under a digest of the sources, so a
re-fit of the same code asks nothing again.

``--leave-one-out`` asks whether more writers make a better score: for each of the training
parts and the retired judges (``RETIRED``) it fits once on the other training parts and once
on every other part, retired judges included, and reports the held-out part's questions
decided as the default decides (the gates' quote, presented when its score reaches the
threshold).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import pickle
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

import numpy as np

from docuchat.config import Settings
from docuchat.embeddings import Embedder, get_embedder
from docuchat.evals.business import OWNER, contains_gold, index_key, ingest_documents
from docuchat.evals.business_set import Evidence, GoldPart, SetQuestion, find_quote, load_set
from docuchat.evals.harness import index_folder, research_agent
from docuchat.evals.qa import OWNER as SQUAD_OWNER
from docuchat.evals.qa import index_key as squad_key
from docuchat.evals.qa import ingest_articles, load_squad
from docuchat.models.base import Model, ModelRequest, ModelResponse, StreamItem
from docuchat.research import ResearchAgent
from docuchat.research.addressing import Signals, Weights, weigh
from docuchat.research.conversation import history_messages, turn_of
from docuchat.research.offline import OfflineModel
from docuchat.research.offline.answer import HELD_WEIGHT, Judgements
from docuchat.research.offline.evidence import read, relevance
from docuchat.research.offline.question import Question
from docuchat.research.offline.transcript import Turn, read_turn
from docuchat.research.questions import Asked, Part, analyse
from docuchat.research.relevance import THRESHOLDS
from docuchat.research.sentences import Passage, Sentence, sentences
from docuchat.research.similarity import SentenceSimilarity
from docuchat.store import open_store
from docuchat.store.accounts import Turn as ConversationTurn
from docuchat.store.base import ChunkRecord

sys.path.insert(0, str(Path(__file__).resolve().parent))
from business_halves import SETS, WORK_HALVES, half_of

HELD_OUT_EVERY = 3
TRAINING = ("dev", "formats", "fresh")
"""The open parts whose training questions are read (dev whole, the others' work half)."""
RETIRED = ("sealed", "sealed2", "sealed3")
"""The first three judges, opened in the seventh round (sealed4 to sealed8 its gates, sealed9
its judge): ``--parts`` may add them (read whole); ``--leave-one-out`` weighs them."""
WEIGHTS_FILE = Path(__file__).resolve().parents[1] / "src/docuchat/research/addressing_weights.py"
GENERATED = frozenset({WEIGHTS_FILE.name, "reader_weights.py"})
"""The fitted weights' files, which the examples do not depend on."""
L2 = 1.0
"""The penalty on the weights' squares (the bias is free)."""
THRESHOLD_GRID = np.round(np.arange(0.05, 0.951, 0.025), 3)
SOURCES = Path(__file__).resolve().parents[1] / "src/docuchat"
EXAMPLES = Path(".cache/addressing-examples")
EXAMPLES_VERSION = 2
"""Raised when ``Example`` changes, so that older cached examples are not read."""


@dataclass
class Capturing:
    """A model that keeps the transcript it answers from."""

    inner: Model
    answered_from: Turn | None = None
    name: str = "offline"

    async def complete(self, request: ModelRequest) -> ModelResponse:
        response = await self.inner.complete(request)
        if not response.tool_calls:
            self.answered_from = read_turn(request.messages)
        return response

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        yield await self.complete(request)

    async def transcript_of(self, asking: Awaitable[object]) -> Turn | None:
        """The transcript the answer of ``asking`` came from (None: it ended without one)."""
        self.answered_from = None
        await asking
        return self.answered_from


@dataclass(frozen=True, slots=True)
class Example:
    signals: Signals
    positive: bool
    passes: bool
    """It passes the gates (``Thresholds.gates``)."""
    rank: float
    """Its ranking score plus ``HELD_WEIGHT`` times its held share: how the model chooses
    among the sentences that pass the gates."""
    read: tuple[str, str] = ("", "")
    """The part as the model reads it and the sentence as it states it (a table row with its
    header's cells): what a reader model reads (``bench/train_reader.py``)."""


@dataclass
class Asking:
    """One training question: per part of it, its sentences' examples."""

    question: SetQuestion
    parts: list[list[Example]] = field(default_factory=list)


def cached(name: str, collecting: Callable[[], list[Asking]]) -> list[Asking]:
    """``collecting()``'s examples, kept under a digest of the model's sources and the
    lexicon's tables (not of the weights: ``GENERATED``)."""
    digest = hashlib.sha256()
    for source in sorted([*SOURCES.rglob("*.py"), *SOURCES.rglob("*.tsv")]):
        if source.name not in GENERATED:
            digest.update(source.read_bytes())
    path = EXAMPLES / f"{name}-v{EXAMPLES_VERSION}-{digest.hexdigest()[:16]}.pickle"
    if path.exists():
        loaded: list[Asking] = pickle.loads(path.read_bytes())
        return loaded
    found = collecting()
    EXAMPLES.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(found))
    return found


def training_questions(part: str) -> list[SetQuestion]:
    """A part split in halves gives its work half; any other part (dev, a retired judge)
    is read whole."""
    questions = load_set(SETS / part).questions
    if part == "dev" or part not in WORK_HALVES:
        return list(questions)
    return [q for q in questions if half_of(q, WORK_HALVES[part]) == "work"]


async def collect(part: str, embedder: Embedder | None, whole: bool = False) -> list[Asking]:
    """``part``'s training questions (``whole``: all its questions) asked, and their examples."""
    eval_set = load_set(SETS / part)
    wanted = list(eval_set.questions) if whole else training_questions(part)
    asked_all: list[Asking] = []
    with index_folder(index_key(eval_set), Path(".cache/eval-index")) as index:
        store = open_store(index / "set.db")
        try:
            doc_ids, _ = ingest_documents(store, OWNER, eval_set.documents)
            capturing = Capturing(OfflineModel())
            agent, _ = research_agent(store, OWNER, capturing, embedder)
            if embedder is not None:
                capturing.inner = OfflineModel().with_embedder(embedder)
            similarity = SentenceSimilarity(embedder) if embedder else None
            for question in wanted:
                turn = await _ask(agent, capturing, question)
                if turn is None:
                    continue
                chunks = {c.id: c for c in store.get_chunks(OWNER, turn.opened)}
                asked = analyse(turn.question, turn.earlier_questions)
                asked_all.append(
                    _examples(question, asked, turn.reading_order(), chunks, doc_ids, similarity)
                )
        finally:
            store.close()
    return asked_all


async def _ask(agent: ResearchAgent, capturing: Capturing, question: SetQuestion) -> Turn | None:
    turns: list[ConversationTurn] = []
    for earlier in question.history:
        turns.append(turn_of(await agent.ask(earlier, history=history_messages(turns, len(turns)))))
    asking = agent.ask(question.text, history=history_messages(turns, len(turns)))
    return await capturing.transcript_of(asking)


def _examples(
    question: SetQuestion,
    asked: Asked,
    passages: Sequence[Passage],
    chunks: dict[str, ChunkRecord],
    doc_ids: dict[str, str],
    similarity: SentenceSimilarity | None,
) -> Asking:
    found = sentences(passages)
    chunk_of = {p.n: chunks.get(p.chunk_id) for p in passages}
    asking = Asking(question)
    for i, part in enumerate(asked.parts):
        gold = _gold_part(question, asked, part, i)
        question_part = Question.of(part, asked)
        reading = read(question_part, found, similarity)
        judgements = Judgements.of(found, reading, THRESHOLDS)
        examples = []
        for s in found:
            judged = judgements.judged(s)
            assert judged.signals is not None
            positive = gold is not None and _holds(s, chunk_of.get(s.n), gold, doc_ids)
            rank = relevance(s, reading) + HELD_WEIGHT * judged.held
            said = (question_part.text, reading.stated[s.id])
            examples.append(Example(judged.signals, positive, judged.addresses, rank, said))
        asking.parts.append(examples)
    return asking


def _gold_part(question: SetQuestion, asked: Asked, part: Part, i: int) -> GoldPart | None:
    """The gold part an asked part stands for: by subject, else by position."""
    if not question.parts:
        return None
    if part.subject:
        for gold in question.parts:
            if gold.subject and gold.subject.casefold() in part.subject.casefold():
                return gold
    if len(asked.parts) == len(question.parts):
        return question.parts[i]
    return question.parts[0] if len(question.parts) == 1 else None


def _holds(s: Sentence, chunk: ChunkRecord | None, gold: GoldPart, doc_ids: dict[str, str]) -> bool:
    """The sentence holds a gold answer and lies inside a gold quote of its document."""
    if chunk is None or not any(contains_gold(s.text, a) for a in gold.answers):
        return False
    at = find_quote(chunk.text, s.text)
    if at is None:
        return False
    start, end = chunk.start + at[0], chunk.start + at[1]
    return any(
        doc_ids.get(e.document) == chunk.doc_id and start < e.end and e.start < end
        for e in gold.evidence
    )


# ── SQuAD's training paragraphs ─────────────────────────────────────────────
async def collect_squad(path: Path, embedder: Embedder | None) -> list[Asking]:
    """SQuAD's training paragraphs (``qa_offline.held_out``: every third is held out): a
    sentence is positive when it is in the question's paragraph and holds a gold answer."""
    dataset = load_squad(path)
    asked_all: list[Asking] = []
    with index_folder(squad_key(dataset), Settings().home / "eval") as folder:
        store = open_store(folder / "qa.db")
        try:
            ingested = ingest_articles(store, SQUAD_OWNER, dataset.articles, folder)
            capturing = Capturing(OfflineModel())
            agent, _ = research_agent(store, SQUAD_OWNER, capturing, embedder)
            if embedder is not None:
                capturing.inner = OfflineModel().with_embedder(embedder)
            similarity = SentenceSimilarity(embedder) if embedder else None
            for q in dataset.questions:
                if q.paragraph % HELD_OUT_EVERY == HELD_OUT_EVERY - 1:
                    continue
                turn = await capturing.transcript_of(agent.ask(q.text))
                if turn is None:
                    continue
                chunks = {c.id: c for c in store.get_chunks(SQUAD_OWNER, turn.opened)}
                article = ingested[q.article]
                start, end = article.paragraph_spans[q.paragraph]
                evidence = Evidence("article", "", start, end)
                gold = SetQuestion(
                    q.id,
                    "fact" if q.answerable else "unanswerable",
                    q.text,
                    (GoldPart(q.answers, (evidence,)),) if q.answerable else (),
                )
                asked = analyse(turn.question)
                asked_all.append(
                    _examples(
                        gold,
                        asked,
                        turn.reading_order(),
                        chunks,
                        {"article": article.doc_id},
                        similarity,
                    )
                )
        finally:
            store.close()
    return asked_all


# ── the fit ─────────────────────────────────────────────────────────────────
def names_of(by_meaning: bool) -> list[str]:
    probe = Signals(0.0, 0.0, 0.0 if by_meaning else None, 0.0, *[False] * 6)
    return sorted(probe.values())


def matrix(examples: Sequence[Example], names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([[e.signals.values()[n] for n in names] for e in examples], dtype=float)
    y = np.array([float(e.positive) for e in examples])
    return x, y


def fit(
    x: np.ndarray, y: np.ndarray, counts: np.ndarray, l2: float = L2
) -> tuple[np.ndarray, float]:
    """Logistic regression by Newton's method, each example weighing ``counts``; the
    weights and the bias."""
    design = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(design.shape[1])
    penalty = np.full(design.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-design @ w))
        gradient = design.T @ (counts * (p - y)) + penalty * w
        hessian = (design * (counts * p * (1 - p))[:, None]).T @ design + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[:-1], float(w[-1])


@dataclass(frozen=True, slots=True)
class Outcome:
    right: int
    wrong: int
    """Answered, and not right."""
    n: int

    def __str__(self) -> str:
        return f"right {self.right}/{self.n}, wrong {self.wrong}"


def simulate(
    asked: Sequence[Asking],
    addresses: Callable[[Example], bool],
    choice: Callable[[Example], float],
    presented: Callable[[Example], bool] = lambda e: True,
) -> Outcome:
    """Each question decided as the model decides: per part, of the sentences that address
    it, the one ``choice`` puts first; declined when no part has one, and not presented as
    an answer when no part's chosen sentence is ``presented``. Right: every part's chosen
    sentence holds its gold answer and is presented (or, unanswerable, no answer
    presented)."""
    right = wrong = 0
    for asking in asked:
        chosen = []
        for examples in asking.parts:
            addressing = [e for e in examples if addresses(e)]
            best = max(addressing, key=choice) if addressing else None
            chosen.append(best if best is not None and presented(best) else None)
        answered = any(c is not None for c in chosen)
        good = (
            all(c is not None and c.positive for c in chosen)
            if asking.question.answerable
            else not answered
        )
        right += good
        wrong += answered and not good
    return Outcome(right, wrong, len(asked))


def choose_threshold(asked: Sequence[Asking], weights: Weights) -> tuple[float, Outcome]:
    """The threshold on the score with the most questions right less wrong answers."""

    def outcome(threshold: float) -> Outcome:
        def score(e: Example) -> float:
            return weigh(e.signals, weights).score

        return simulate(asked, lambda e: score(e) >= threshold, score)

    found = [(float(t), outcome(float(t))) for t in THRESHOLD_GRID]
    return max(found, key=lambda f: (f[1].right - f[1].wrong, -f[1].wrong))


def report(name: str, asked: Sequence[Asking], weights: Weights) -> None:
    """The decisions on ``asked``: the gates choosing by rank, each quote presented as an
    answer (the model before) or only when its score reaches the threshold (the default),
    and the score alone (``--decision score``)."""

    def score(e: Example) -> float:
        return weigh(e.signals, weights).score

    def alone(e: Example) -> bool:
        return score(e) >= weights.threshold

    def gates(e: Example) -> bool:
        return e.passes

    def rank(e: Example) -> float:
        return e.rank

    print(f"  {name}: gates, every quote presented: {simulate(asked, gates, rank)}")
    print(f"  {name}: gates, presented by score: {simulate(asked, gates, rank, alone)}")
    print(f"  {name}: score alone: {simulate(asked, alone, score)}")


def write(found: dict[str, Weights]) -> None:
    doc = [
        "The fitted weights of ``research.addressing``: written by",
        "``python bench/fit_addressing.py --write`` (do not edit by hand).",
    ]
    write_weights(WEIGHTS_FILE, doc, found)


def write_weights(path: Path, doc: Sequence[str], found: dict[str, Weights]) -> None:
    """A weights module: its docstring ``doc``, then for each setting its weights by name,
    ``_BIAS`` and ``_THRESHOLD``."""
    lines = ['"""' + doc[0], *doc[1:], '"""', ""]
    for setting, weights in found.items():
        lines.append(f"{setting} = {{")
        lines += [f'    "{n}": {w:.4f},' for n, w in weights.weights.items()]
        lines.append("}")
        lines.append(f"{setting}_BIAS = {weights.bias:.4f}")
        lines.append(f"{setting}_THRESHOLD = {weights.threshold:.3f}")
    path.write_text("\n".join(lines) + "\n")


def fitted(
    asked: Sequence[Asking], by_meaning: bool, squad: Sequence[Asking] = (), verbose: bool = True
) -> Weights:
    """The regression over the business questions ``asked`` and SQuAD's ``squad``, each
    domain weighing as much as the other; the threshold chosen on the business questions."""
    examples = [e for a in asked for p in a.parts for e in p]
    others = [e for a in squad for p in a.parts for e in p]
    names = names_of(by_meaning)
    x, y = matrix([*examples, *others], names)
    counts = np.concatenate(
        [np.ones(len(examples)), np.full(len(others), len(examples) / max(len(others), 1))]
    )
    w, bias = fit(x, y, counts)
    weights = Weights(dict(zip(names, (float(v) for v in w), strict=True)), bias, 0.5)
    threshold, _ = choose_threshold(asked, weights)
    if not verbose:
        return replace(weights, threshold=threshold)
    print(
        f"{len(asked)} + {len(squad)} SQuAD questions, {len(y)} sentences, {int(y.sum())} positive"
    )
    print("  weights", {n: round(v, 2) for n, v in weights.weights.items()}, round(bias, 2))
    print(f"  threshold {threshold}")
    return replace(weights, threshold=threshold)


def leave_one_out(
    asked: dict[str, list[Asking]], by_meaning: bool, squad: Sequence[Asking]
) -> None:
    """Each part held out in turn, fitted on the other training parts ("training") and on
    every other part ("all"): right and wrong answers on the part held out, and in all."""
    totals = {"training": [0, 0], "all": [0, 0]}
    for held in asked:
        found = []
        for name, parts in (
            ("training", [p for p in TRAINING if p != held and p in asked]),
            ("all", [p for p in asked if p != held]),
        ):
            weights = fitted([a for p in parts for a in asked[p]], by_meaning, squad, False)

            def presented(e: Example, w: Weights = weights) -> bool:
                return weigh(e.signals, w).score >= w.threshold

            outcome = simulate(asked[held], lambda e: e.passes, lambda e: e.rank, presented)
            totals[name][0] += outcome.right
            totals[name][1] += outcome.wrong
            found.append(f"{name}: {outcome} (threshold {weights.threshold})")
        print(f"  held out {held}: " + "; ".join(found))
    print("  in all: " + "; ".join(f"{n}: right {r}, wrong {w}" for n, (r, w) in totals.items()))


def _collected(part: str, embedder: Embedder | None) -> list[Asking]:
    return asyncio.run(collect(part, embedder))


def collected_whole(part: str, embedder: Embedder | None) -> list[Asking]:
    return asyncio.run(collect(part, embedder, whole=True))


def _collected_squad(path: Path, embedder: Embedder | None) -> list[Asking]:
    return asyncio.run(collect_squad(path, embedder))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="write the weights into src")
    parser.add_argument("--parts", nargs="+", default=list(TRAINING), help="training parts")
    parser.add_argument(
        "--squad", type=Path, help="a SQuAD 2.0 file whose training paragraphs are fitted on too"
    )
    parser.add_argument(
        "--leave-one-out",
        action="store_true",
        help="fit without each part in turn (the retired judges added) and report it",
    )
    args = parser.parse_args()
    if args.leave_one_out:
        args.parts = [*args.parts, *RETIRED]
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    embedder = get_embedder("auto", purpose="documents")
    found = {}
    for setting, used in (("BY_MEANING", embedder), ("BY_WORDS", None)):
        print(setting)
        parts = [p for p in args.parts if (SETS / p).is_dir()]
        asked = {p: cached(f"{p}-{setting}", partial(_collected, p, used)) for p in parts}
        squad = (
            cached(f"squad-{setting}", partial(_collected_squad, args.squad, used))
            if args.squad
            else []
        )
        if args.leave_one_out:
            leave_one_out(asked, used is not None, squad)
            continue
        weights = fitted([a for p in parts for a in asked[p]], used is not None, squad)
        for part in parts:
            report(part, asked[part], weights)
        if squad:
            report("SQuAD answerable", [a for a in squad if a.question.answerable], weights)
            report("SQuAD unanswerable", [a for a in squad if not a.question.answerable], weights)
        found[setting] = weights
    if args.write:
        write(found)


if __name__ == "__main__":
    main()
