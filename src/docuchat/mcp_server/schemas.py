"""What docuchat's MCP tools accept and return: each result as structured content and as text.

Keys are camelCase, as in MCP itself and in the research agent's own tools
(``docId``, ``chunkId``), so ids from ``search_docs`` go to ``open_citation``
unchanged. Citation spans are character offsets into the document's text, the
text its resource (``docuchat://documents/{docId}``) returns.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from docuchat.corpus.locations import location_json
from docuchat.research import Answer
from docuchat.research.agent import Mode
from docuchat.store.base import DocumentRecord

DOCUMENT_URI = "docuchat://documents/{docId}"


def document_uri(doc_id: str) -> str:
    return DOCUMENT_URI.format(docId=doc_id)


class Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SearchArguments(Arguments):
    query: str = Field(min_length=1, description="What to look for, in words")


class OpenArguments(Arguments):
    docId: str = Field(description="A docId from search_docs")
    chunkId: str = Field(description="The chunkId of that hit")


class NoArguments(Arguments):
    pass


class AskArguments(Arguments):
    question: str = Field(min_length=1)
    mode: Mode | None = Field(
        default=None,
        description="agent: the research agent chooses its searches; pipeline: one search, "
        "the top passages, one answer (default: the server's --mode)",
    )


class ToolResult(BaseModel, ABC):
    @abstractmethod
    def as_text(self) -> str:
        """The same result for a client that reads text only."""


class Hit(BaseModel):
    docId: str
    chunkId: str
    title: str
    file: str = ""
    """The name of the document's file, when it has one."""
    page: int | None
    snippet: str
    score: float


class SearchResult(ToolResult):
    query: str
    hits: list[Hit]

    def as_text(self) -> str:
        if not self.hits:
            return f"Nothing in your documents matches {self.query!r}."
        return "\n".join(
            f"- {h.title}, page {h.page} (docId {h.docId}, chunkId {h.chunkId}): {h.snippet}"
            for h in self.hits
        )


class Passage(ToolResult):
    docId: str
    chunkId: str
    title: str
    file: str = ""
    page: int | None
    text: str

    def as_text(self) -> str:
        return f"{self.title}, page {self.page}:\n\n{self.text}"


class DocumentInfo(BaseModel):
    docId: str
    title: str
    uri: str = Field(description="Its resource: the document's whole text")
    mediaType: str
    pages: int
    chunks: int
    addedAt: str
    source: str | None

    @classmethod
    def of(cls, record: DocumentRecord) -> DocumentInfo:
        return cls(
            docId=record.id,
            title=record.title,
            uri=document_uri(record.id),
            mediaType=record.media_type,
            pages=record.page_count,
            chunks=record.chunk_count,
            addedAt=record.added_at,
            source=record.source,
        )


class DocumentList(ToolResult):
    documents: list[DocumentInfo]

    def as_text(self) -> str:
        if not self.documents:
            return "You have no documents yet."
        return "\n".join(
            f"- {d.title} ({d.mediaType}, {d.pages} pages; docId {d.docId})" for d in self.documents
        )


class CitedSource(BaseModel):
    n: int
    docId: str
    chunkId: str
    title: str
    page: int
    label: str = Field(
        description='Where to look: "page 2", "pages 2-3", "slide 4", "Budget!A2:C2", a section'
    )
    locations: list[dict[str, Any]] = Field(
        description='Where the quote stands: {"page": N, "boxes": [[x0, y0, x1, y1], ...]}'
        " (fractions of the page, origin top-left, one box per line), or"
        ' {"slide": N}, {"sheet": ..., "cells": "A2:C2"}, {"section": ...}'
    )
    start: int = Field(description="Where the quote starts in the document's text")
    end: int
    quote: str
    verified: bool = Field(description="The cited sentence is supported by the passage")
    support: float


class AskResult(ToolResult):
    question: str
    answer: str
    outcome: str = Field(description="answered, or why the run ended without a full answer")
    mode: Mode
    citations: list[CitedSource]
    unsupportedClaims: list[str] = Field(description="Sentences that claim with no verified source")
    removedCitations: list[int] = Field(description="[N] markers to passages never opened")
    fallback: bool = Field(description="The agent failed and the fixed pipeline answered")
    fallbackReason: str

    @classmethod
    def of(cls, answer: Answer) -> AskResult:
        return cls(
            question=answer.question,
            answer=answer.answer,
            outcome=answer.outcome,
            mode=answer.mode,
            citations=[
                CitedSource(
                    n=c.n,
                    docId=c.doc_id,
                    chunkId=c.chunk_id,
                    title=c.title,
                    page=c.page,
                    label=c.label,
                    locations=[location_json(location) for location in c.locations],
                    start=c.start,
                    end=c.end,
                    quote=c.quote,
                    verified=c.verified,
                    support=c.support,
                )
                for c in answer.citations
            ],
            unsupportedClaims=list(answer.unsupported_claims),
            removedCitations=list(answer.removed_citations),
            fallback=answer.fallback,
            fallbackReason=answer.fallback_reason,
        )

    def as_text(self) -> str:
        lines = [self.answer or f"(no answer: {self.outcome})"]
        if self.citations:
            lines += ["", "Sources:"]
            lines += [
                f"[{c.n}] {c.title}, {c.label} ({'verified' if c.verified else 'not verified'})"
                f": “{c.quote}”"
                for c in self.citations
            ]
        lines += [f"Unsupported claim: {claim}" for claim in self.unsupportedClaims]
        return "\n".join(lines)
