"""The next tool calls: search the question (its key words, or the question as asked when
the model ranks by meaning too), refine once if needed, open the most promising passages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from docuchat.research.offline.question import Question
from docuchat.research.offline.transcript import OPEN, SEARCH, Hit, Turn
from docuchat.research.questions import Asked
from docuchat.research.text import numbers
from docuchat.research.words import naming, stem, stems

MAX_OPENS = 3  # the runtime keeps only the last three opened passages in full

Call = tuple[str, dict[str, str]]


@dataclass(frozen=True, slots=True)
class Budget:
    tool_calls: int
    steps: int


def plan(turn: Turn, asked: Asked, budget: Budget, *, by_meaning: bool = False) -> list[Call]:
    """The next tool calls, or none when it is time to answer. ``by_meaning``: the model
    ranks by an embedder too, so it searches the question as asked (a hybrid search's
    vectors find more by the whole question than by its key words). A comparison searches
    once per subject and opens the best passage of each."""
    calls_left = budget.tool_calls - turn.tool_calls
    steps_left = budget.steps - turn.steps - 1  # keep the last step for the answer
    if calls_left <= 0 or steps_left <= 0 or turn.opened or not asked.text.strip():
        return []
    if asked.comparison:
        return _compare(turn, asked, calls_left)
    question = Question.of(asked.parts[0], asked)
    if not turn.queries:
        whole, keywords = _queries(asked)
        return [(SEARCH, {"query": (whole if by_meaning else keywords) or asked.text})]
    if len(turn.queries) == 1 and calls_left >= 2 and steps_left >= 2:
        refined = _refined_query(turn, question, asked)
        if refined:
            return [(SEARCH, {"query": refined})]
    hits = _rank_hits([h for search in turn.searches for h in search], asked.terms)
    return _opening(_by_document(hits) if asked.across else hits, calls_left)


def _by_document(hits: Sequence[Hit]) -> list[Hit]:
    """The best hit of each document first, then the rest: a comparison across documents
    opens a passage of each."""
    firsts = list({h.doc_id: h for h in reversed(hits)}.values())[::-1]
    return _distinct([*firsts, *hits])


def _opening(hits: Sequence[Hit], calls_left: int) -> list[Call]:
    return [
        (OPEN, {"docId": h.doc_id, "chunkId": h.chunk_id}) for h in hits[:MAX_OPENS][:calls_left]
    ]


def _compare(turn: Turn, asked: Asked, calls_left: int) -> list[Call]:
    """A search per subject (its name and the question's other key words), then the best
    hit of each search that names its subject, then the best of the rest."""
    parts = asked.parts[:MAX_OPENS]
    if not turn.queries:
        queries = [" ".join(p.keywords) for p in parts]
        return [(SEARCH, {"query": q}) for q in dict.fromkeys(queries)][:calls_left]
    chosen: list[Hit] = []
    for part, hits in zip(parts, turn.searches, strict=False):
        ranked = _rank_hits(hits, part.terms)
        named = [h for h in ranked if part.names <= stems(f"{naming(h.title, h.file)} {h.snippet}")]
        opened = {h.chunk_id for h in chosen}
        chosen += [h for h in named or ranked if h.chunk_id not in opened][:1]
    rest = [h for search in turn.searches for h in search]
    return _opening(_distinct([*chosen, *rest]), calls_left)


def _queries(asked: Asked) -> tuple[str, str]:
    """The question as asked (with a follow-up's borrowed words), and its key words."""
    keywords = dict.fromkeys(w for part in asked.parts for w in part.keywords)
    borrowed = list(asked.parts[0].borrowed) if asked.follow_up else []
    return " ".join([asked.text, *borrowed]), " ".join(keywords)


def _refined_query(turn: Turn, question: Question, asked: Asked) -> str | None:
    """Other words when the search found nothing (the question as asked, or its key words
    when that was the first search), or nothing that mentions the question's names and
    numbers (those alone); None when it went well."""
    hits = turn.searches[-1] if turn.searches else []
    names = question.capitalised - set().union(*(stems(h.snippet) for h in hits))
    figures = question.numbers - set().union(*(numbers(h.snippet) for h in hits))
    if hits and not names | figures:
        return None
    named = [w for w in question.keywords if stem(w) in names]
    focus = " ".join(dict.fromkeys([*named, *sorted(figures)]))
    used = {q.casefold() for q in turn.queries}
    candidates = [focus] if hits and focus else list(_queries(asked))
    return next((q for q in candidates if q and q.casefold() not in used), None)


def _rank_hits(hits: Sequence[Hit], terms: Mapping[str, float]) -> list[Hit]:
    """Distinct hits; a snippet holding more of the question's terms moves a hit up."""
    unique = _distinct(hits)
    total = sum(terms.values()) or 1.0

    def key(item: tuple[int, Hit]) -> float:
        rank, hit = item
        covered = sum(terms[t] for t in terms.keys() & stems(hit.snippet))
        return covered / total + 1.0 / (1 + rank)

    return [hit for _, hit in sorted(enumerate(unique), key=key, reverse=True)]


def _distinct(hits: Sequence[Hit]) -> list[Hit]:
    """The hits in order, each passage once (two searches may find one passage)."""
    return list({h.chunk_id: h for h in hits}.values())
