"""Where a part of the business set loses its answerable questions: search, opening or answer.

``python bench/business_retrieval.py evals/business/PART [--embedder none]`` asks every
answerable question through the real research agent (the default offline model) and
prints, per kind, aggregate figures only (a sealed part's questions stay unread):

- ``search@k``: a gold quote of the part overlaps one of the first k chunks a search for
  the question as asked returns (the agent's own searches may use other words);
- ``opened``: the agent opened a passage that overlaps a gold quote;
- ``cited``, ``right``: as ``docuchat eval qa`` scores them.

A part's figure is the share of its gold parts (a comparison has one per subject).
"""

from __future__ import annotations

import argparse
import asyncio
import os
from collections import defaultdict
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from docuchat.embeddings import Embedder, get_embedder
from docuchat.evals.business import (
    OWNER,
    answer_facts,
    contains_gold,
    index_key,
    ingest_documents,
    passage_spans,
    score,
)
from docuchat.evals.business_set import SetQuestion, load_set
from docuchat.evals.harness import index_folder, research_agent
from docuchat.models.base import Model, ModelRequest, ModelResponse, StreamItem
from docuchat.research import Answer, ResearchAgent
from docuchat.research.conversation import history_messages, turn_of
from docuchat.research.offline import OfflineModel
from docuchat.research.offline.transcript import OPEN
from docuchat.research.questions import analyse, meant
from docuchat.research.relevance import Addressing, judge
from docuchat.research.sentences import Passage, sentences, stating
from docuchat.research.similarity import SentenceSimilarity
from docuchat.search.hybrid import HybridSearcher
from docuchat.store import Store, open_store
from docuchat.store.accounts import Turn
from docuchat.store.base import ChunkRecord

KS = (1, 3, 5, 10)
WHY = ("names", "head", "negation", "terms", "kind", "elsewhere")
"""Why a gold sentence does not address its part (``relevance.Addressing``)."""


def _why(judged: Addressing) -> list[str]:
    return [
        why
        for why, fails in zip(
            WHY,
            (
                bool(judged.missing_names),
                bool(judged.missing_head),
                judged.unnegated,
                not judged.covered,
                judged.kind is not None and judged.found is None,
                judged.elsewhere is not None,
            ),
            strict=True,
        )
        if fails
    ]


@dataclass
class Recording:
    """A model that notes the passages it opens."""

    inner: Model
    opened: list[str] = field(default_factory=list)
    name: str = "offline"

    async def complete(self, request: ModelRequest) -> ModelResponse:
        response = await self.inner.complete(request)
        self.opened += [str(c.arguments["chunkId"]) for c in response.tool_calls if c.name == OPEN]
        return response

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        yield await self.complete(request)


def _overlaps(span: tuple[int, int], start: int, end: int) -> bool:
    return span[0] < end and start < span[1]


async def _ask(agent: ResearchAgent, recording: Recording, question: SetQuestion) -> Answer:
    turns: list[Turn] = []
    for earlier in question.history:
        turns.append(turn_of(await agent.ask(earlier, history=history_messages(turns, len(turns)))))
    recording.opened.clear()
    return await agent.ask(question.text, history=history_messages(turns, len(turns)))


async def run(
    folder: Path, embedder: Embedder | None, *, by_meaning: bool = True
) -> dict[str, dict[str, float]]:
    eval_set = load_set(folder)
    cache = Path(".cache/eval-index")
    figures: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    diagnosis: dict[str, int] = defaultdict(int)
    with index_folder(index_key(eval_set), cache) as index:
        store: Store = open_store(index / "set.db")
        try:
            doc_ids, _ = ingest_documents(store, OWNER, eval_set.documents)
            recording = Recording(OfflineModel())
            agent, _ = research_agent(store, OWNER, recording, embedder)
            if embedder is not None and by_meaning:
                recording.inner = OfflineModel().with_embedder(embedder)
            searcher = HybridSearcher(store, embedder)
            similarity = SentenceSimilarity(embedder) if embedder and by_meaning else None
            for question in eval_set.questions:
                if not question.answerable:
                    continue
                hits = searcher.search(OWNER, question.text, k=max(KS))
                answer = await _ask(agent, recording, question)
                opened = store.get_chunks(OWNER, recording.opened)
                scored = score(
                    question,
                    answer_facts(answer, passage_spans(store, OWNER, answer)),
                    doc_ids,
                    0.0,
                )
                row = figures[question.kind]
                for part, part_score in zip(question.parts, scored.parts, strict=True):
                    gold = [(doc_ids[e.document], e.start, e.end) for e in part.evidence]

                    def holds(
                        doc_id: str, span: tuple[int, int], g: list[tuple[str, int, int]] = gold
                    ) -> bool:
                        return any(d == doc_id and _overlaps(span, s, e) for d, s, e in g)

                    for k in KS:
                        row[f"search@{k}"].append(
                            any(holds(h.doc_id, (h.start, h.end)) for h in hits[:k])
                        )
                    row["opened"].append(any(holds(c.doc_id, (c.start, c.end)) for c in opened))
                    row["cited"].append(part_score.cited)
                    row["found"].append(part_score.found)
                row["right"].append(scored.right)
                if question.kind in ("fact", "follow_up"):
                    _diagnose(question, opened, doc_ids, similarity, diagnosis, scored.right)
        finally:
            store.close()
    print("facts and follow-ups, gold sentence opened:", dict(diagnosis))
    return {
        kind: {name: round(sum(v) / len(v), 3) for name, v in row.items()}
        | {"n": len(row["right"])}
        for kind, row in figures.items()
    }


def _diagnose(
    question: SetQuestion,
    opened: Sequence[ChunkRecord],
    doc_ids: Mapping[str, str],
    similarity: SentenceSimilarity | None,
    diagnosis: dict[str, int],
    right: bool,
) -> None:
    """Whether a sentence holding the gold answer was read, and if so why it does not
    address the question (counts only)."""
    asked = analyse(question.text, question.history)
    part, gold = asked.parts[0], question.parts[0]
    read = sentences([Passage(n, c.id, c.text, c.title) for n, c in enumerate(opened, 1)])
    by_id = {s.id: s for s in read}
    docs = {doc_ids[e.document] for e in gold.evidence}
    titles = {c.title for c in opened if c.doc_id in docs}
    holding = [
        s for s in read if s.title in titles and any(contains_gold(s.text, a) for a in gold.answers)
    ]
    outcome = "right" if right else "wrong"
    if not holding:
        diagnosis[f"{outcome}: no gold sentence read"] += 1
        return
    judged = []
    for s in holding:
        close = None if similarity is None else similarity(meant(part, asked), [s.text])[0]
        judged.append(judge(part, s, asked.text, stating(s, by_id), close))
    if any(j.addresses for j in judged):
        diagnosis[f"{outcome}: gold addresses"] += 1
        return
    for why in _why(min(judged, key=lambda j: len(_why(j)))):
        diagnosis[f"{outcome}: gold fails {why}"] += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("part", type=Path)
    parser.add_argument("--embedder", default="auto", help="'none' for BM25 alone")
    parser.add_argument(
        "--words-only",
        action="store_true",
        help="the offline model ranks sentences by words alone (search stays hybrid)",
    )
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    embedder = None if args.embedder == "none" else get_embedder(args.embedder, purpose="documents")
    table = asyncio.run(run(args.part, embedder, by_meaning=not args.words_only))
    columns = ["n", *(f"search@{k}" for k in KS), "opened", "cited", "found", "right"]
    print("| kind | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for kind, row in table.items():
        print(f"| {kind} | " + " | ".join(str(row[c]) for c in columns) + " |")


if __name__ == "__main__":
    main()
