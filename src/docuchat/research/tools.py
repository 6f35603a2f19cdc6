"""The research agent's tools, bound to one asking user and one run.

``search_docs`` returns metadata only (ids, title, page, a short snippet,
score), never full text. ``open_citation`` returns a passage's text, capped,
and numbers it for citing, after checking that it belongs to the asker: a
foreign or unknown id gets the same error, with no hint of whether it exists.
Only the last few opened passages stay in full in the prompt (older ones
become stubs). How many results, how many characters and how many passages
stay open is the question's detail level (:mod:`docuchat.research.detail`;
standard: 8 results, 1,500 characters, 3 passages).

The opt-in richer set (seed 002) adds ``read_document`` (a document's text
around a focus query), ``read_multiple_documents`` (several at once) and
``get_document_summary``. A new tool is one definition here and its place in a
tool set: it returns a typed value (``for_model()``, ``summary()``) and says
how it is presented (``action``, ``describe``).

Each tool returns a typed value (``SearchResults``, ``OpenedPassage``,
``DocumentOverview``) that says how it is shown to the model and to people;
the live view, the server's steps and the offline model read these values.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import Field

from docuchat.agent import RunContext, Tool, tool
from docuchat.errors import NotFound
from docuchat.research.citations import CitationRegistry, passage_label
from docuchat.research.detail import DETAILS, Detail
from docuchat.search.hybrid import HybridSearcher, RankedChunk, SearchResult
from docuchat.store.base import ChunkRecord, DocumentFilter

SNIPPET_CHARS = 240
STANDARD = DETAILS["standard"]
QUERY_CHARS = 300


class PassageUnavailable(Exception):
    """The asker has no passage with that id (unknown or someone else's: we do not say)."""


@dataclass(frozen=True, slots=True)
class Hit:
    """One passage a search found: where it is, and a short snippet (never its full text)."""

    doc_id: str
    chunk_id: str
    title: str
    page: int | None
    snippet: str
    score: float
    file: str = ""
    """The name of the document's file (``OpenedPassage.file``)."""

    def as_dict(self, *, with_file: bool = False) -> dict[str, object]:
        """What a language model is shown (without the file, as the recorded runs were
        made); ``with_file``: for a client that shows it (MCP)."""
        return {
            "docId": self.doc_id,
            "chunkId": self.chunk_id,
            "title": self.title,
            **({"file": self.file} if with_file else {}),
            "page": self.page,
            "snippet": self.snippet,
            "score": self.score,
        }


@dataclass(frozen=True, slots=True)
class SearchResults:
    """What ``search_docs`` returns."""

    query: str
    hits: tuple[Hit, ...]

    def for_model(self) -> str:
        return _json({"query": self.query, "hits": [h.as_dict() for h in self.hits]})

    def summary(self) -> str:
        if not self.hits:
            return "Found no passages"
        titles = list(dict.fromkeys(h.title for h in self.hits))
        passages = _count(len(self.hits), "passage")
        return f"Found {passages} in {_count(len(titles), 'document')}: " + ", ".join(titles[:3])


@dataclass(frozen=True, slots=True)
class OpenedPassage:
    """What ``open_citation`` and ``read_document`` return: a passage numbered for citing."""

    citation: int
    doc_id: str
    chunk_id: str
    title: str
    page: int | None
    text: str
    location: str = ""
    """Where the passage starts, as citations write it: "page 2", "slide 4",
    "Budget 2026!A2:C2", a section's heading."""
    file: str = ""
    """The name of the document's file ("quarrington-supply-agreement.docx"): what its owner
    named it for, often the party or subject a title leaves out. The offline model and MCP
    clients read it; ``as_dict`` (what a language model is shown) leaves it out, as the
    recorded llama.cpp runs were made without it."""

    @property
    def where(self) -> str:
        return self.location or f"page {self.page}"

    def for_model(self) -> str:
        return _json(self.as_dict())

    def summary(self) -> str:
        return f"Read [{self.citation}] {self.title}, {self.where}"

    def as_dict(self) -> dict[str, object]:
        return {
            "citation": self.citation,
            "docId": self.doc_id,
            "chunkId": self.chunk_id,
            "title": self.title,
            "page": self.page,
            "location": self.where,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class DocumentsRead:
    """What ``read_multiple_documents`` returns: a numbered passage per document read."""

    passages: tuple[OpenedPassage, ...]
    unavailable: tuple[str, ...]
    """Ids the asker has no readable document under (unknown, someone else's, no match)."""
    not_read: tuple[str, ...]
    """Ids past the detail level's documents per call."""

    def for_model(self) -> str:
        return _json(
            {
                "passages": [p.as_dict() for p in self.passages],
                "unavailable": list(self.unavailable),
                "not_read": list(self.not_read),
            }
        )

    def summary(self) -> str:
        titles = ", ".join(f"[{p.citation}] {p.title}" for p in self.passages)
        read = f"Read {_count(len(self.passages), 'document')}" + (f": {titles}" if titles else "")
        skipped = len(self.unavailable) + len(self.not_read)
        return read + (f"; {skipped} not read" if skipped else "")


@dataclass(frozen=True, slots=True)
class DocumentOverview:
    """What ``get_document_summary`` returns."""

    doc_id: str
    title: str
    pages: int
    chunks: int
    media_type: str
    opening: str

    def for_model(self) -> str:
        return _json(
            {
                "docId": self.doc_id,
                "title": self.title,
                "pages": self.pages,
                "chunks": self.chunks,
                "mediaType": self.media_type,
                "opening": self.opening,
            }
        )

    def summary(self) -> str:
        return f"Summarised {self.title} ({_count(self.pages, 'page')})"


@dataclass(slots=True)
class ResearchSession:
    """One asker, one run: what was searched and which passages were opened.

    The tools below are built once and reach the session as the run's ``deps``.
    """

    searcher: HybridSearcher
    owner: str
    detail: Detail = STANDARD
    where: DocumentFilter | None = None
    registry: CitationRegistry = field(default_factory=CitationRegistry)
    searches: list[str] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)
    """Document titles seen in this run's search results, by document id."""

    def search(self, query: str) -> SearchResults:
        self.searches.append(query)
        results = self.searcher.search(
            self.owner, query, k=self.detail.search_results, where=self.where
        )
        found = SearchResults(query, tuple(_hit(r) for r in results))
        self.titles.update((h.doc_id, h.title) for h in found.hits)
        return found

    def open(self, doc_id: str, chunk_id: str) -> OpenedPassage:
        chunk = self._owned_chunk(doc_id, chunk_id)
        return _passage(self.registry.number(chunk), chunk, chunk.text[: self.detail.passage_chars])

    def title_of(self, doc_id: object) -> str:
        return self.titles.get(str(doc_id), "a document")

    def read(self, doc_id: str, focus_query: str, chars: int | None = None) -> OpenedPassage:
        store = self.searcher.store
        doc = store.get_document(self.owner, doc_id)  # NotFound for foreign ids
        where = DocumentFilter(doc_ids=frozenset({doc_id}))

        def best(query: str) -> list[RankedChunk]:
            return self.searcher.rank(self.owner, query, k=1, where=where, mode="bm25")

        # A focus the document lacks reads it from the passage its title matches best.
        ranked = best(focus_query.strip() or doc.title) or best(doc.title)
        if not ranked:
            raise PassageUnavailable("nothing in that document matches; try another focus_query")
        chunk = store.get_chunk(self.owner, ranked[0].chunk_id)
        end = chunk.start + (chars or self.detail.read_chars)
        text = store.document_text(self.owner, doc_id, chunk.start, end)
        return _passage(self.registry.number(chunk), chunk, text)

    def read_many(self, doc_ids: list[str], focus_query: str) -> DocumentsRead:
        wanted = list(dict.fromkeys(doc_ids))
        cap = self.detail.documents_per_read
        taken, not_read = wanted[:cap], wanted[cap:]
        chars = max(self.detail.passage_chars, self.detail.read_chars // max(1, len(taken)))
        passages, unavailable = [], []
        for doc_id in taken:
            try:
                passages.append(self.read(doc_id, focus_query, chars))
            except (NotFound, PassageUnavailable):
                unavailable.append(doc_id)
        return DocumentsRead(tuple(passages), tuple(unavailable), tuple(not_read))

    def summary(self, doc_id: str) -> DocumentOverview:
        store = self.searcher.store
        doc = store.get_document(self.owner, doc_id)
        self.titles[doc.id] = doc.title
        return DocumentOverview(
            doc.id,
            doc.title,
            doc.page_count,
            doc.chunk_count,
            doc.media_type,
            store.document_text(self.owner, doc_id, 0, 600),
        )

    def _owned_chunk(self, doc_id: str, chunk_id: str) -> ChunkRecord:
        try:
            chunk = self.searcher.store.get_chunk(self.owner, chunk_id)
        except NotFound:
            chunk = None
        if chunk is None or chunk.doc_id != doc_id:
            raise PassageUnavailable(
                f"no passage {chunk_id!r} in document {doc_id!r} is available to you; "
                "use ids from search_docs results"
            )
        return chunk


Context = RunContext[ResearchSession]


def _searching(arguments: Mapping[str, Any], _ctx: Context) -> str:
    return f"Searching for: {arguments.get('query', '')}"


def _reading_passage(arguments: Mapping[str, Any], ctx: Context) -> str:
    return f"Reading a passage of {ctx.deps.title_of(arguments.get('docId'))}"


def _reading(arguments: Mapping[str, Any], ctx: Context) -> str:
    return f"Reading {ctx.deps.title_of(arguments.get('docId'))}"


def _reading_several(arguments: Mapping[str, Any], ctx: Context) -> str:
    ids = arguments.get("docIds") or []
    titles = [ctx.deps.title_of(doc_id) for doc_id in ids] if isinstance(ids, list) else []
    return "Reading " + (", ".join(titles) if titles else "documents")


def _summarising(arguments: Mapping[str, Any], ctx: Context) -> str:
    return f"Summarising {ctx.deps.title_of(arguments.get('docId'))}"


# Bounds in the schema: a server that decodes under a grammar (llama.cpp) keeps to them, where
# a small model would otherwise search for "" or write until its answer cap cut the JSON short.
SearchQuery = Annotated[str, Field(min_length=1, max_length=QUERY_CHARS)]


@tool(name="search_docs", action="searching", describe=_searching)
async def search_docs(ctx: Context, query: SearchQuery) -> SearchResults:
    """Search the user's documents. Returns, per matching passage: docId, chunkId, title,
    page, a short snippet and a score; never the full text. Open a passage with
    open_citation to read it and to be able to cite it."""
    session = ctx.deps
    if session.searcher.searches_in_place(session.owner):
        # A worker-thread hop (and the GIL passed back and forth) costs more than this
        # search: about 0.5 ms of CPU per conversation with 200 runs in flight.
        return session.search(query)
    return await asyncio.to_thread(session.search, query)


# Opening tools are coroutines that never await: concurrent calls of one response then run
# in call order on the event loop, so citation numbers follow the model's call order.
@tool(
    name="open_citation",
    action="reading",
    describe=_reading_passage,
    keep_last=STANDARD.keep_open,
)
async def open_citation(ctx: Context, docId: str, chunkId: str) -> OpenedPassage:
    """Open one passage found by search_docs and read its text.
    The result carries a citation number N: cite the passage as [N] in your answer."""
    return ctx.deps.open(docId, chunkId)


@tool(name="read_document", action="reading", describe=_reading, keep_last=STANDARD.keep_open)
async def read_document(ctx: Context, docId: str, focus_query: str = "") -> OpenedPassage:
    """Read a document's text from the passage that best matches focus_query (default:
    the document's title), a few thousand characters. Cite it with the returned number [N]."""
    return ctx.deps.read(docId, focus_query)


@tool(
    name="read_multiple_documents",
    action="reading",
    describe=_reading_several,
    keep_last=STANDARD.keep_open,
)
async def read_multiple_documents(
    ctx: Context, docIds: list[str], focus_query: str = ""
) -> DocumentsRead:
    """Read several documents at once (ids from search_docs), each from the passage that
    best matches focus_query. Each passage read gets its own number [N] to cite; ids that
    could not be read are listed."""
    return ctx.deps.read_many(docIds, focus_query)


@tool(name="get_document_summary", action="summarising", describe=_summarising)
def get_document_summary(ctx: Context, docId: str) -> DocumentOverview:
    """A short overview of one document: title, pages, size and its opening lines."""
    return ctx.deps.summary(docId)


BASIC_TOOLS: tuple[Tool, ...] = (search_docs, open_citation)
RICH_TOOLS: tuple[Tool, ...] = (
    *BASIC_TOOLS,
    read_document,
    read_multiple_documents,
    get_document_summary,
)


def tools_for(tools: tuple[Tool, ...], detail: Detail) -> tuple[Tool, ...]:
    """The tools with the detail level's count of passages kept open (on every tool whose
    older results become stubs)."""
    return tuple(
        t if t.keep_last is None else dataclasses.replace(t, keep_last=detail.keep_open)
        for t in tools
    )


def _hit(result: SearchResult) -> Hit:
    snippet = result.snippet.text
    if len(snippet) > SNIPPET_CHARS:
        snippet = snippet[: SNIPPET_CHARS - 1] + "…"
    score = round(result.score, 4)
    return Hit(
        result.doc_id, result.chunk_id, result.title, result.page, snippet, score, result.file
    )


def _passage(n: int, chunk: ChunkRecord, text: str) -> OpenedPassage:
    return OpenedPassage(
        n, chunk.doc_id, chunk.id, chunk.title, chunk.page, text, passage_label(chunk), chunk.file
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)
