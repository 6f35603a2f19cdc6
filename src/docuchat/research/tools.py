"""The research agent's tools, bound to one asking user and one run.

``search_docs`` returns metadata only (ids, title, page, a short snippet,
score), never full text. ``open_citation`` returns a passage's text capped at
1,500 characters, and numbers it for citing, after checking that it belongs to
the asker: a foreign or unknown id gets the same error, with no hint of
whether it exists. Only the last three opened passages stay in full in the
prompt (older ones become stubs).

The opt-in richer set (seed 002) adds ``read_document`` (a document's text
around a focus query) and ``get_document_summary``.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

from docuchat.agent import RunContext, Tool, tool
from docuchat.errors import NotFound
from docuchat.research.citations import CitationRegistry
from docuchat.search.hybrid import HybridSearcher, SearchResult
from docuchat.store.base import ChunkRecord, DocumentFilter

OPEN_CAP = 1500
READ_CAP = 3000
SNIPPET_CHARS = 240
KEEP_OPENED = 3


class PassageUnavailable(Exception):
    """The asker has no passage with that id (unknown or someone else's: we do not say)."""


def search_summary(output: str) -> str:
    hits = json.loads(output).get("hits", [])
    titles = list(dict.fromkeys(h["title"] for h in hits))
    if not hits:
        return "Found nothing"
    return f"Found {len(hits)} passages in {len(titles)} document(s): " + ", ".join(titles[:3])


def open_summary(output: str) -> str:
    data = json.loads(output)
    return f"Read [{data['citation']}] {data['title']}, page {data['page']}"


@dataclass(slots=True)
class ResearchSession:
    """One asker, one run: what was searched and which passages were opened.

    The tools below are built once and reach the session as the run's ``deps``.
    """

    searcher: HybridSearcher
    owner: str
    k: int = 8
    where: DocumentFilter | None = None
    registry: CitationRegistry = field(default_factory=CitationRegistry)
    searches: list[str] = field(default_factory=list)

    def search(self, query: str) -> dict[str, object]:
        self.searches.append(query)
        results = self.searcher.search(self.owner, query, k=self.k, where=self.where)
        return {"query": query, "hits": [_hit(r) for r in results]}

    def open(self, doc_id: str, chunk_id: str) -> dict[str, object]:
        chunk = self._owned_chunk(doc_id, chunk_id)
        return _passage(self.registry.number(chunk), chunk, chunk.text[:OPEN_CAP])

    def read(self, doc_id: str, focus_query: str) -> dict[str, object]:
        store = self.searcher.store
        doc = store.get_document(self.owner, doc_id)  # NotFound for foreign ids
        where = DocumentFilter(doc_ids=frozenset({doc_id}))
        query = focus_query.strip() or doc.title
        ranked = self.searcher.rank(self.owner, query, k=1, where=where, mode="bm25")
        if not ranked:
            raise PassageUnavailable("nothing in that document matches; try another focus_query")
        chunk = store.get_chunk(self.owner, ranked[0].chunk_id)
        text = store.document_text(self.owner, doc_id, chunk.start, chunk.start + READ_CAP)
        return _passage(self.registry.number(chunk), chunk, text)

    def summary(self, doc_id: str) -> dict[str, object]:
        store = self.searcher.store
        doc = store.get_document(self.owner, doc_id)
        return {
            "docId": doc.id,
            "title": doc.title,
            "pages": doc.page_count,
            "chunks": doc.chunk_count,
            "mediaType": doc.media_type,
            "opening": store.document_text(self.owner, doc_id, 0, 600),
        }

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


@tool(name="search_docs", summarize=search_summary)
async def search_docs(ctx: Context, query: str) -> str:
    """Search the user's documents. Returns, per matching passage: docId, chunkId, title,
    page, a short snippet and a score; never the full text. Open a passage with
    open_citation to read it and to be able to cite it."""
    session = ctx.deps
    if session.searcher.searches_in_place(session.owner):
        # A worker-thread hop (and the GIL passed back and forth) costs more than this
        # search: about 0.5 ms of CPU per conversation with 200 runs in flight.
        found = session.search(query)
    else:
        found = await asyncio.to_thread(session.search, query)
    return json.dumps(found, ensure_ascii=False)


# Opening tools are coroutines that never await: concurrent calls of one response then run
# in call order on the event loop, so citation numbers follow the model's call order.
@tool(name="open_citation", summarize=open_summary, keep_last=KEEP_OPENED)
async def open_citation(ctx: Context, docId: str, chunkId: str) -> str:
    """Open one passage found by search_docs and read its text (up to 1,500 characters).
    The result carries a citation number N: cite the passage as [N] in your answer."""
    return json.dumps(ctx.deps.open(docId, chunkId), ensure_ascii=False)


@tool(name="read_document", summarize=open_summary, keep_last=KEEP_OPENED)
async def read_document(ctx: Context, docId: str, focus_query: str = "") -> str:
    """Read a document's text from the passage that best matches focus_query (default:
    the document's title), up to 3,000 characters. Cite it with the returned number [N]."""
    return json.dumps(ctx.deps.read(docId, focus_query), ensure_ascii=False)


@tool(name="get_document_summary")
def get_document_summary(ctx: Context, docId: str) -> str:
    """A short overview of one document: title, pages, size and its opening lines."""
    return json.dumps(ctx.deps.summary(docId), ensure_ascii=False)


BASIC_TOOLS: tuple[Tool, ...] = (search_docs, open_citation)
RICH_TOOLS: tuple[Tool, ...] = (*BASIC_TOOLS, read_document, get_document_summary)


def _hit(result: SearchResult) -> dict[str, object]:
    snippet = result.snippet.text
    if len(snippet) > SNIPPET_CHARS:
        snippet = snippet[: SNIPPET_CHARS - 1] + "…"
    return {
        "docId": result.doc_id,
        "chunkId": result.chunk_id,
        "title": result.title,
        "page": result.page,
        "snippet": snippet,
        "score": round(result.score, 4),
    }


def _passage(n: int, chunk: ChunkRecord, text: str) -> dict[str, object]:
    return {
        "citation": n,
        "docId": chunk.doc_id,
        "chunkId": chunk.id,
        "title": chunk.title,
        "page": chunk.page,
        "text": text,
    }
