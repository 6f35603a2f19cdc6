"""What the HTTP API accepts (``*Create``, ``*Request``) and returns (``*Public``, results).

The OpenAPI schema is generated from these models. Times are ISO 8601 strings
in UTC.
"""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import BaseModel, Field

from docuchat.research import Answer, Presentation
from docuchat.store import AddStatus, ChunkRecord, DocumentRecord
from docuchat.store.accounts import (
    Conversation,
    ConversationSummary,
    JobStatus,
    Turn,
    UploadJob,
    User,
)

Mode = Literal["agent", "pipeline"]


class ErrorResponse(BaseModel):
    detail: str


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    version: str


class UserPublic(BaseModel):
    id: str
    name: str

    @classmethod
    def of(cls, user: User) -> UserPublic:
        return cls(id=user.id, name=user.name)


# -- documents and uploads ----------------------------------------------------


class DocumentPublic(BaseModel):
    id: str
    title: str
    media_type: str
    page_count: int
    chunk_count: int
    added_at: str
    source: str | None

    @classmethod
    def of(cls, record: DocumentRecord) -> DocumentPublic:
        return cls(
            id=record.id,
            title=record.title,
            media_type=record.media_type,
            page_count=record.page_count,
            chunk_count=record.chunk_count,
            added_at=record.added_at,
            source=record.source,
        )


class DocumentList(BaseModel):
    documents: list[DocumentPublic]


class UploadAccepted(BaseModel):
    job_id: str
    status: JobStatus
    files: list[str]


class JobDocument(BaseModel):
    id: str
    title: str
    status: AddStatus
    pages: int
    chunks: int


class JobSkipped(BaseModel):
    file: str
    reason: str
    message: str


class JobPublic(BaseModel):
    job_id: str
    status: JobStatus
    total: int
    done: int
    documents: list[JobDocument]
    skipped: list[JobSkipped]
    error: str | None

    @classmethod
    def of(cls, job: UploadJob) -> JobPublic:
        return cls(
            job_id=job.id,
            status=job.status,
            total=len(job.files),
            done=job.done,
            documents=[
                JobDocument(
                    id=d.doc_id, title=d.title, status=d.status, pages=d.pages, chunks=d.chunks
                )
                for d in job.documents
            ],
            skipped=[
                JobSkipped(file=s.path, reason=s.reason, message=s.message) for s in job.skipped
            ],
            error=job.error,
        )


class PassagePublic(BaseModel):
    chunk_id: str
    doc_id: str
    title: str
    page: int
    page_end: int
    start: int
    end: int
    text: str
    context_before: str = Field(description="Up to 400 characters of the document before the chunk")
    context_after: str = Field(description="Up to 400 characters of the document after the chunk")

    @classmethod
    def of(cls, chunk: ChunkRecord, before: str, after: str) -> PassagePublic:
        return cls(
            chunk_id=chunk.id,
            doc_id=chunk.doc_id,
            title=chunk.title,
            page=chunk.page,
            page_end=chunk.page_end,
            start=chunk.start,
            end=chunk.end,
            text=chunk.text,
            context_before=before,
            context_after=after,
        )


# -- answers and conversations ------------------------------------------------


class AddressingPublic(BaseModel):
    """Why a sentence addresses a part of the question or not."""

    addresses: bool
    coverage: float = Field(description="Share of the question's terms it and its context hold")
    similarity: float | None = Field(description="Cosine of embeddings; null without embedder")
    matched: list[str] = Field(description="The question's terms (stems) it holds")
    answer: str | None = Field(description="The fact of the kind asked for that it states")
    missing_names: list[str]
    missing_head: str | None = Field(description="The word for what is asked that it lacks")
    reasons: list[str] = Field(description="Why it addresses the part or not, in words")


class CitationPublic(BaseModel):
    n: int
    title: str
    doc_id: str
    chunk_id: str
    page: int
    span: tuple[int, int] = Field(description="The quote's [start, end) in the document's text")
    quote: str
    verified: bool = Field(description="The passage supports the sentence citing it")
    support: float
    addresses: bool | None = Field(
        default=None,
        description="The quote addresses the question: it names the question's subject and "
        "states a fact of the kind asked for (null: not judged, e.g. an older answer)",
    )
    relevance: AddressingPublic | None = None


class NearestPublic(BaseModel):
    n: int
    sentence: str
    why_not: list[str]


class PartPublic(BaseModel):
    asks: str
    kind: str | None = Field(description="The kind of fact asked for: date, duration, money…")
    subject: str | None = Field(description="A comparison's subject")
    addressed_by: list[int] = Field(description="Verified citations that address this part")
    nearest: NearestPublic | None = Field(
        default=None, description="When none does: the sentence read that comes nearest"
    )


class RelevancePublic(BaseModel):
    addresses: bool = Field(description="Every part of the question is addressed")
    parts_addressed: int
    parts: list[PartPublic]


class AskRequest(BaseModel):
    question: str = Field(min_length=1, max_length=8000, pattern=r"\S")
    conversation_id: str | None = Field(
        default=None, description="Continue this conversation; null starts a new one"
    )
    mode: Mode = "agent"
    stream: bool = True


class AskResult(BaseModel):
    run_id: str
    conversation_id: str | None
    answer: str
    citations: list[CitationPublic]
    verified_citations: int
    removed_citations: list[int] = Field(description="Numbers cited but never opened: removed")
    unsupported_claims: list[str]
    presentation: Presentation = Field(
        description="answer: verified citations address every part of the question; partial: "
        "some parts; not_an_answer: verified citations, none of which addresses it (show the "
        "quotes as related passages, not as an answer); unsupported: no citation verified; "
        "declined: the answer says the documents do not hold it"
    )
    relevance: RelevancePublic | None
    outcome: str
    forced: bool
    fallback: bool
    fallback_reason: str
    mode: Mode
    usage: dict[str, Any]

    @classmethod
    def of(cls, answer: Answer, run_id: str, conversation_id: str | None) -> Self:
        fields = answer.to_dict(trace=False)
        del fields["question"]
        return cls(run_id=run_id, conversation_id=conversation_id, **fields)


class CancelResult(BaseModel):
    cancelled: bool


class ConversationCreate(BaseModel):
    title: str | None = Field(default=None, max_length=200)


class ConversationSummaryPublic(BaseModel):
    id: str
    title: str
    created_at: str
    updated_at: str
    turns: int

    @classmethod
    def of(cls, summary: ConversationSummary) -> ConversationSummaryPublic:
        return cls(
            id=summary.id,
            title=summary.title,
            created_at=summary.created_at,
            updated_at=summary.updated_at,
            turns=summary.turn_count,
        )


class ConversationList(BaseModel):
    conversations: list[ConversationSummaryPublic]


class TurnPublic(BaseModel):
    question: str
    answer: str
    citations: list[CitationPublic]
    outcome: str
    created_at: str

    @classmethod
    def of(cls, turn: Turn) -> TurnPublic:
        return cls(
            question=turn.question,
            answer=turn.answer,
            citations=[CitationPublic.model_validate(c) for c in turn.citations],
            outcome=turn.outcome,
            created_at=turn.created_at,
        )


class ConversationPublic(BaseModel):
    id: str
    title: str
    created_at: str
    updated_at: str
    turns: list[TurnPublic]

    @classmethod
    def of(cls, conversation: Conversation) -> ConversationPublic:
        return cls(
            id=conversation.id,
            title=conversation.title,
            created_at=conversation.created_at,
            updated_at=conversation.updated_at,
            turns=[TurnPublic.of(t) for t in conversation.turns],
        )


_ERROR_DESCRIPTIONS = {
    400: "The request is not acceptable, or its body cannot be parsed (the message says why)",
    401: "Missing, malformed or unknown API key",
    404: "No such item for this key's owner (unknown and foreign ids alike)",
    411: "The upload did not say its length",
    413: "The upload, or one of its files, is too large",
    415: "A file type that cannot be read",
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for these error statuses, each with an ``ErrorResponse`` body."""
    return {s: {"model": ErrorResponse, "description": _ERROR_DESCRIPTIONS[s]} for s in statuses}
