"""What the HTTP API accepts (``*Create``, ``*Request``) and returns (``*Public``, results).

The OpenAPI schema is generated from these models. Times are ISO 8601 strings
in UTC.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from docuchat.agent.events import Action
from docuchat.config import DetailLevel, ToolSet
from docuchat.research import Answer, Presentation
from docuchat.research.agent import Mode
from docuchat.research.detail import QuestionLimits
from docuchat.store import AddStatus, ChunkRecord, DocumentRecord
from docuchat.store.accounts import Conversation, ConversationSummary, Turn, TurnStep, User
from docuchat.store.coordination import JobStatus, QueueStats, UploadJob

ToolStatus = Literal["running", "complete", "error"]

QUESTION_MAX_CHARS = 8000
"""The longest question on every entry point: ``/api/ask`` and the last message to ``/v1``."""
MODE_REASON = (
    "Why the answer came in another mode than asked (a model below min_model_for_agent "
    "answers with the pipeline); empty when it came as asked"
)


class ErrorResponse(BaseModel):
    detail: str


class QueueHealth(BaseModel):
    reachable: bool
    """Whether the upload queue (a table of the database) answered."""
    queued: int | None = None
    running: int | None = None
    ingesting_processes: int | None = None
    """Live processes of the deployment that take upload jobs (servers and workers)."""
    ingests_here: bool
    """Whether this process takes upload jobs."""


class Health(BaseModel):
    status: Literal["ok", "unavailable"]
    """``unavailable`` (HTTP 503) when the database does not answer."""
    version: str
    pid: int
    """The operating system's id of the process that answered."""
    process: str
    """Its id among the deployment's processes (the start of its run ids)."""
    processes: int | None
    """Live processes of the deployment."""
    database: bool
    """Whether the database answered."""
    queue: QueueHealth

    @classmethod
    def of(
        cls, stats: QueueStats | None, *, version: str, pid: int, process: str, ingests: bool
    ) -> Health:
        """From the queue's statistics, or None if the database did not answer."""
        queue = QueueHealth(reachable=stats is not None, ingests_here=ingests)
        if stats is not None:
            queue.queued, queue.running = stats.queued, stats.running
            queue.ingesting_processes = stats.ingesting
        return cls(
            status="ok" if stats is not None else "unavailable",
            version=version,
            pid=pid,
            process=process,
            processes=None if stats is None else stats.processes,
            database=stats is not None,
            queue=queue,
        )


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


class JobSkipped(BaseModel):
    file: str
    reason: str
    message: str


class UploadAccepted(BaseModel):
    job_id: str
    status: JobStatus
    files: list[str]
    rejected: list[JobSkipped] = Field(
        default_factory=list, description="Files refused by type or size, with the reason"
    )


class JobDocument(BaseModel):
    id: str
    title: str
    status: AddStatus
    pages: int
    chunks: int


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
    score: float = Field(
        description="The learned probability that it states the answer (0 to 1)", ge=0, le=1
    )
    coverage: float = Field(description="Share of the question's terms it and its context hold")
    similarity: float | None = Field(description="Cosine of embeddings; null without embedder")
    matched: list[str] = Field(description="The question's terms (stems) it holds")
    answer: str | None = Field(description="The fact of the kind asked for that it states")
    missing_names: list[str]
    missing_head: str | None = Field(description="The word for what is asked that it lacks")
    reasons: list[str] = Field(description="Why it addresses the part or not, in words")


class LocationPublic(BaseModel):
    """Where a quote stands: a page with its boxes, a slide, sheet cells or a section."""

    page: int | None = None
    boxes: list[tuple[float, float, float, float]] | None = Field(
        default=None,
        description="The quote's own characters on the page, one box per line: [x0, y0, x1, y1]"
        " as fractions of the page's width and height, origin top-left",
    )
    slide: int | None = None
    sheet: str | None = None
    cells: str | None = Field(default=None, description='A range such as "A2:C2"')
    rows: tuple[int, int] | None = None
    columns: tuple[int, int] | None = None
    section: str | None = None


class CitationPublic(BaseModel):
    n: int
    title: str
    doc_id: str
    chunk_id: str
    page: int = Field(description="The page where the quote starts")
    page_end: int | None = Field(default=None, description="The page where the quote ends")
    label: str = Field(
        default="", description='Where to look: "page 2", "pages 2-3", "slide 4", "Sheet!A2:C2"'
    )
    locations: list[LocationPublic] = Field(default_factory=list)
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


class ClaimPublic(BaseModel):
    text: str = Field(description="A sentence of the answer, without its markers")
    citations: list[CitationPublic] = Field(
        description="Each passage the sentence cites, checked against this sentence: "
        "`verified` when the passage supports it"
    )


def _whole(value: object) -> object:
    """JSON Schema's integers include ``3.0``; pydantic's strict integers do not."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


AtLeastOne = Annotated[int, Field(ge=1), BeforeValidator(_whole)]
"""An integer of a strict request, at least 1: ``3`` or ``3.0``, never ``true`` or ``"3"``."""


class ResearchRequest(BaseModel):
    """How to research one question; what is left out is the server's ``[research]``
    setting. Limits are capped at the server's maxima."""

    # Strict: the schema says integer, number, boolean: ``true`` or ``"3"`` is a 422.
    model_config = ConfigDict(strict=True)

    detail: DetailLevel | None = Field(
        default=None,
        description="brief, standard or detailed: sets the tool calls, passages per search, "
        "characters read and passages kept open",
    )
    tools: ToolSet | None = Field(
        default=None,
        description="rich adds read_document, read_multiple_documents and get_document_summary",
    )
    max_tool_calls: AtLeastOne | None = None
    max_iterations: AtLeastOne | None = None
    timeout: float | None = Field(
        default=None,
        gt=0,
        description="Seconds the question may take: research, forced synthesis and the "
        "pipeline fallback together",
    )

    @property
    def limits(self) -> QuestionLimits:
        return QuestionLimits(self.max_tool_calls, self.max_iterations, self.timeout)


class AskRequest(BaseModel):
    model_config = ConfigDict(strict=True)

    question: str = Field(min_length=1, max_length=QUESTION_MAX_CHARS, pattern=r"\S")
    conversation_id: str | None = Field(
        default=None, description="Continue this conversation; null starts a new one"
    )
    mode: Mode = "agent"
    stream: bool = True
    model: str | None = Field(
        default=None,
        description="A model of the server's [research] models_allowed (default: its "
        "model); another is a 404",
    )
    research: ResearchRequest = Field(default_factory=ResearchRequest)


class AskResult(BaseModel):
    run_id: str
    conversation_id: str | None
    answer: str
    citations: list[CitationPublic] = Field(
        description="Each passage cited, once: verified when it supports every sentence citing it"
    )
    claims: list[ClaimPublic] = Field(
        description="Each sentence that cites passages, in order, with its own verdicts"
    )
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
    reminded: bool = Field(description="The model answered without searching and was reminded")
    extractive: bool = Field(
        description="The model failed after opening passages: the answer quotes them"
    )
    mode: Mode
    mode_reason: str = Field(description=MODE_REASON)
    model_error: str = Field(
        description="The model provider's error that left the question without an answer "
        "(an unreachable server names its URL); empty when there was none"
    )
    model: str
    model_choice: str = Field(description="Why this model: what `auto` found, if it chose")
    context_window: dict[str, Any] | None = Field(
        description="The window the runs were held to (tokens) and where that figure comes from"
    )
    usage: dict[str, Any]
    total_usage: dict[str, Any] = Field(description="Every run's usage together (fallbacks too)")

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


class StepPublic(BaseModel):
    """A tool step: streamed as it runs (``StepEvent``) and kept with its turn."""

    step_id: str = Field(description="The tool call's id: the same for its running and end event")
    tool_name: str
    tool_input: dict[str, Any]
    tool_output: str | None = Field(description="A one-line summary of the tool's output")
    tool_status: ToolStatus
    action_type: Action
    message: str
    timestamp: float = Field(description="Unix time in seconds")
    duration_ms: float | None
    detail: str | None = Field(description="The tool's full output")


def finished_step(step: TurnStep) -> dict[str, Any]:
    """The fields of a finished step, as streamed and as kept."""
    return {
        "step_id": step.step_id,
        "tool_name": step.tool_name,
        "tool_input": dict(step.tool_input),
        "tool_output": step.summary,
        "tool_status": step.status,
        "action_type": step.action,
        "message": step.message,
        "timestamp": step.timestamp,
        "duration_ms": step.duration_ms,
        "detail": step.detail,
    }


class KeptStep(StepPublic):
    note: str = Field(description="What the model wrote on its way, just before this step")

    @classmethod
    def of(cls, step: TurnStep) -> KeptStep:
        return cls(**finished_step(step), note=step.note)


class TurnPublic(BaseModel):
    question: str
    answer: str
    citations: list[CitationPublic]
    outcome: str
    created_at: str
    steps: list[KeptStep] = Field(description="The tool steps, as they were shown")
    mode_reason: str = Field(description=MODE_REASON)

    @classmethod
    def of(cls, turn: Turn) -> TurnPublic:
        return cls(
            question=turn.question,
            answer=turn.answer,
            citations=[CitationPublic.model_validate(c) for c in turn.citations],
            outcome=turn.outcome,
            created_at=turn.created_at,
            steps=[KeptStep.of(step) for step in turn.steps],
            mode_reason=turn.mode_reason,
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
    408: "The body stopped arriving (see the server's read_timeout)",
    411: "The upload did not say its length",
    413: "The upload, or one of its files, is too large",
    415: "A file type that cannot be read",
    503: "The upload queue is full (retry after the seconds of `Retry-After`), or the"
    " database does not answer",
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for these error statuses, each with an ``ErrorResponse`` body."""
    return {s: {"model": ErrorResponse, "description": _ERROR_DESCRIPTIONS[s]} for s in statuses}
