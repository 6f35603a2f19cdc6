"""The research agent: cited answers over one user's documents.

Agent mode (default): the model chooses searches, refines them, opens what it
needs and answers, within 5 tool calls and 5 iterations. Pipeline mode: one
fixed search, open the top passages, answer; it is also the fallback when an
agent run ends without an answer (a model error, a limit that left no text),
while the question's time lasts.

Time: a question ends within its ``timeout`` (default 60 s): the research,
its forced synthesis and the pipeline fallback together. One model call may
take ``model_timeout`` seconds (default 30): a model that does not answer is
given up on then, without a fallback that would ask it again
(``docuchat.research.detail``).

What is not accepted, and what comes instead (each labelled on the ``Answer``):

- an answer given without a single tool that worked (no search, no passage
  read, no other tool): the model is reminded once to search first (its next
  call must be ``search_docs``); if it still does not, the pipeline answers
  (``fallback``);
- a run that failed after passages were opened (a model error, a protocol
  failure, a context overflow, no answer in time): the answer quotes the
  passages read, composed by the offline model's extractive answerer
  (``extractive``), rather than nothing. It asks no model, so it comes even
  when the model is unreachable or the question's time is up;
- a run that failed before opening anything: the pipeline answers, and if its
  model call fails too, the extractive answer from its passages.

The model's context window (configured, reported by its server, learned from an
overflow, or a safe default: :mod:`docuchat.models.window`) is set on every
run's limits, so the runtime evicts old results and stops calling tools before
the window is full.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Literal, TypeVar

from docuchat.agent import (
    Agent,
    AgentStream,
    Cancellation,
    Event,
    Limits,
    RunContext,
    RunResult,
    Tool,
    ToolCallFinished,
    ToolCallStarted,
)
from docuchat.agent.events import event_to_dict
from docuchat.agent.result import Usage
from docuchat.agent.tools import ToolOutput
from docuchat.agent.trace import TraceSink
from docuchat.corpus.locations import location_json
from docuchat.errors import ModelConnectionError, ModelError
from docuchat.models.base import (
    AssistantMessage,
    Message,
    Model,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    UserMessage,
    UseTool,
)
from docuchat.models.tools_or_text import protocol_note
from docuchat.models.window import ContextWindow, context_window_of
from docuchat.research.citations import (
    Citation,
    Claim,
    Verification,
    declines,
    locate,
    verify,
)
from docuchat.research.detail import (
    DETAILS,
    Detail,
    question_seconds,
    research_limits,
    within,
)
from docuchat.research.followup import search_query
from docuchat.research.library import Library
from docuchat.research.offline import OfflineModel
from docuchat.research.prompts import (
    OTHER_TOOLS_NOTE,
    PIPELINE_PROMPT,
    SEARCH_FIRST_PROMPT,
    SYSTEM_PROMPT,
)
from docuchat.research.questions import Asked, analyse, earlier_questions, tool_budget
from docuchat.research.reader import installed_reader
from docuchat.research.relevance import (
    THRESHOLDS,
    TRUST,
    AnswerRelevance,
    Thresholds,
    assess_answer,
)
from docuchat.research.similarity import SentenceSimilarity, for_the_score
from docuchat.research.tools import (
    BASIC_TOOLS,
    RICH_TOOLS,
    ResearchSession,
    open_citation,
    search_docs,
    tools_for,
)
from docuchat.search.hybrid import HybridSearcher
from docuchat.store.base import DocumentFilter

Mode = Literal["agent", "pipeline"]
Presentation = Literal["answer", "partial", "not_an_answer", "unsupported", "declined"]


def presentation_of(
    abstained: bool, verified: int, relevance: AnswerRelevance | None
) -> Presentation:
    """``Answer.presentation`` of an answer that declines or not, has ``verified`` verified
    citations and the research agent's judgement ``relevance`` (None: not judged)."""
    if abstained:
        return "declined"
    if not verified:
        return "unsupported"
    if relevance is None or relevance.addresses:
        return "answer"
    return "partial" if relevance.addressed_parts else "not_an_answer"


def shown_as_answer(presentation: Presentation) -> bool:
    """An answer so presented is shown as one: it does not decline, and its quotes are not
    shown as related passages only (``not_an_answer``)."""
    return presentation not in ("declined", "not_an_answer")


NO_ANSWER = "No answer:"
NOT_ADDRESSED = "the passages found do not address the question. Related passages:"
"""How every front end introduces an answer presented as ``not_an_answer``."""
V = TypeVar("V", bound=ToolOutput)

MIN_FALLBACK_SECONDS = 1.0
"""Less time than this left: no pipeline fallback."""
DEFAULT_LIMITS = research_limits()
OWN_TOOL_NAMES = frozenset(t.name for t in RICH_TOOLS)
"""Names an extra tool cannot take (an MCP server's tool of the same name gets a prefix)."""
Failure = Literal["model_error", "timeout", "limit", "cancelled"]
"""Why a question has no answer: the model failed (an error, an invalid response), it did
not answer in time, a limit ended the research, or the run was cancelled."""
_MODEL_FAILURES = frozenset({"model_error", "invalid_response", "answered"})
FAILED_MODEL = frozenset({"model_error", "invalid_response", "context_overflow"})
"""Outcomes where the model itself failed: a forced answer after them is not kept when
passages were opened (the extractive answer quotes them instead)."""
NO_SEARCH = "the model answered without searching the documents, even when reminded"


@dataclass(frozen=True, slots=True)
class Answer:
    """The result of one question: what a person, a client or an eval needs."""

    question: str
    answer: str
    citations: tuple[Citation, ...]
    outcome: str
    forced: bool
    fallback: bool
    """True when the agent run failed and the pipeline answered instead."""
    fallback_reason: str
    mode: Mode
    removed_citations: tuple[int, ...]
    unsupported_claims: tuple[str, ...]
    run: RunResult
    """The runtime's result of the run that produced the answer (events, usage, transcript)."""
    failed_run: RunResult | None = None
    mode_reason: str = ""
    """Why ``mode`` is not the one asked for (a model below ``min_model_for_agent``)."""
    events: tuple[Event, ...] = ()
    """Every event streamed for the question, in order: a failed agent run's, the
    pipeline's fixed steps, the answering run's (what a live view showed)."""
    earlier_runs: tuple[RunResult, ...] = ()
    """The runs before ``run``, in order (``failed_run`` is one of them; so is an answer
    given without searching, when the model was reminded)."""
    reminded: bool = False
    """The model answered without searching and was reminded to search first."""
    extractive: bool = False
    """The model failed after passages were opened: the answer quotes them, composed by
    the offline model's extractive answerer."""
    model: str = ""
    """The model that was asked (``openai:qwen2.5``...)."""
    model_choice: str = ""
    """Why that model: what ``--model auto`` found, and the protocol it speaks when its
    server decided it (llama.cpp templates that drop tools); empty for a model named outright."""
    context_window: ContextWindow | None = None
    """The window the runs were held to, and where its figure comes from."""

    @property
    def model_error(self) -> ModelError | None:
        """The provider error that left the question without an answer, if one did."""
        return self.run.error or (self.failed_run.error if self.failed_run else None)

    @property
    def runs(self) -> tuple[RunResult, ...]:
        """Every run behind the answer, in the order they ran."""
        return (*self.earlier_runs, self.run)

    @property
    def total_usage(self) -> Usage:
        """What every run behind the answer spent (``run.usage`` is the last run's)."""
        return Usage(
            model_calls=[c for r in self.runs for c in r.usage.model_calls],
            tool_calls=sum(r.usage.tool_calls for r in self.runs),
            wall_ms=sum(r.usage.wall_ms for r in self.runs),
            price=self.run.usage.price,
        )

    claims: tuple[Claim, ...] = ()
    """Each sentence that cites a passage, with each citation checked against it."""
    relevance: AnswerRelevance | None = None
    """Whether the verified citations address the question, part by part (and per
    citation); None for an answer read back from storage."""

    @property
    def verified_count(self) -> int:
        return sum(1 for c in self.citations if c.verified)

    @property
    def abstained(self) -> bool:
        """The answer declines to answer: it is empty, or opens by saying that the
        documents do not hold the answer (see ``citations.declines``)."""
        return declines(self.answer)

    @property
    def presentation(self) -> Presentation:
        """How the answer is to be shown: ``declined`` (it says the documents do not hold
        the answer), ``unsupported`` (no citation verified: its claims are flagged),
        ``answer`` (verified citations address every part of the question), ``partial``
        (some parts), ``not_an_answer`` (verified citations, none of which addresses the
        question: its quotes are shown as related passages, not as an answer)."""
        return presentation_of(self.abstained, self.verified_count, self.relevance)

    @property
    def presented(self) -> bool:
        """Shown as an answer (``shown_as_answer``)."""
        return shown_as_answer(self.presentation)

    def addresses(self, n: int) -> bool | None:
        """Whether citation ``n``'s quote addresses the question (None: not judged)."""
        if self.relevance is None or n not in self.relevance.citations:
            return None
        return self.relevance.citations[n].addresses

    @property
    def failure(self) -> Failure | None:
        """Why there is no answer; None when there is one (forced or from the fallback too)."""
        if self.answer.strip():
            return None
        if self.outcome == "cancelled":
            return "cancelled"
        if self.outcome == "timeout":
            return "timeout"
        # An "answered" run with no text is a model that answered nothing.
        return "model_error" if self.outcome in _MODEL_FAILURES else "limit"

    def failure_message(self) -> str:
        """Why there is no answer, for a person: the last run's outcome and reason, after
        the agent's when the pipeline fallback tried too."""
        message = f"no answer ({self.outcome}: {self.run.reason or 'the model wrote nothing'})"
        if self.fallback:
            message += (
                f"; before the pipeline fallback, the agent ended with {self.fallback_reason}"
            )
        return message

    @property
    def messages(self) -> tuple[Message, ...]:
        return self.run.messages

    def citation_dicts(self) -> list[dict[str, Any]]:
        return [self._citation_dict(c) for c in self.citations]

    def _citation_dict(self, citation: Citation) -> dict[str, Any]:
        """A citation with whether its quote addresses the question (one judgement per
        passage: every sentence citing it shares it)."""
        n = citation.n
        return {
            **_citation_dict(citation),
            "addresses": self.addresses(n),
            "relevance": self._judged(n),
        }

    def _judged(self, n: int) -> dict[str, Any] | None:
        if self.relevance is None or n not in self.relevance.citations:
            return None
        return self.relevance.citations[n].judged.as_dict()

    def claim_dicts(self) -> list[dict[str, Any]]:
        return [
            {"text": claim.text, "citations": [self._citation_dict(c) for c in claim.citations]}
            for claim in self.claims
        ]

    def to_dict(self, *, trace: bool = True) -> dict[str, Any]:
        """The result as JSON-ready data; ``trace=False`` leaves out the run's events."""
        result = {
            "question": self.question,
            "answer": self.answer,
            "citations": self.citation_dicts(),
            "claims": self.claim_dicts(),
            "verified_citations": self.verified_count,
            "removed_citations": list(self.removed_citations),
            "unsupported_claims": list(self.unsupported_claims),
            "presentation": self.presentation,
            "relevance": None if self.relevance is None else self.relevance.as_dict(),
            "outcome": self.outcome,
            "forced": self.forced,
            "fallback": self.fallback,
            "fallback_reason": self.fallback_reason,
            "mode": self.mode,
            "reminded": self.reminded,
            "extractive": self.extractive,
            "mode_reason": self.mode_reason,
            "model_error": str(self.model_error or ""),
            "model": self.model,
            "model_choice": self.model_choice,
            "context_window": (
                {"tokens": self.context_window.tokens, "source": self.context_window.source}
                if self.context_window
                else None
            ),
            "usage": self.run.usage.as_dict(),
            "total_usage": self.total_usage.as_dict(),
        }
        if trace:  # every step shown, the pipeline's fixed ones too
            result["trace"] = [event_to_dict(e) for e in self.events]
        return result


def _citation_dict(c: Citation) -> dict[str, Any]:
    return {
        "n": c.n,
        "title": c.title,
        "doc_id": c.doc_id,
        "chunk_id": c.chunk_id,
        "page": c.page,
        "page_end": c.page_end,
        "label": c.label,
        "locations": [location_json(location) for location in c.locations],
        "span": [c.start, c.end],
        "quote": c.quote,
        "verified": c.verified,
        "support": c.support,
    }


@dataclass(frozen=True, slots=True)
class AnswerReady:
    """The last item of ``ResearchAgent.stream``: the verified answer."""

    answer: Answer
    type: Literal["answer"] = "answer"


@dataclass(slots=True)
class ResearchAgent:
    searcher: HybridSearcher
    model: Model
    owner: str
    mode: Mode = "agent"
    limits: Limits = DEFAULT_LIMITS
    rich_tools: bool = False
    detail: Detail = DETAILS["standard"]
    """Results per search, characters read, passages kept open (the limits are ``limits``)."""
    mode_reason: str = ""
    """Why the question was answered in ``mode`` when that was not asked for."""
    where: DocumentFilter | None = None
    system_prompt: str = SYSTEM_PROMPT
    extra_tools: tuple[Tool, ...] = ()
    """More tools (an MCP server's, your own) beside the rich set; needs ``rich_tools``."""
    context_window: int | None = None
    """The model's window in tokens when configured; else asked of the model (once)."""
    model_choice: str = ""
    """Why this model (see ``Answer.model_choice``)."""
    thresholds: Thresholds = THRESHOLDS
    """How the offline model decides which sentence addresses the question (to quote it)."""
    trust: Thresholds = TRUST
    """How every answer's citations are judged to address the question or not
    (``Answer.presentation``), whichever model answered."""
    _runtimes: dict[int | None, Agent[str]] = field(default_factory=dict, init=False, repr=False)
    _similarity: SentenceSimilarity | None = field(default=None, init=False, repr=False)
    _window: ContextWindow | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.extra_tools and not self.rich_tools:
            raise ValueError("extra tools join the rich tool set: set rich_tools=True")

    async def ask(
        self,
        question: str,
        *,
        history: Sequence[Message] = (),
        cancel: Cancellation | None = None,
        trace: TraceSink | None = None,
        stream_text: bool = True,
    ) -> Answer:
        answer: Answer | None = None
        items = self.stream(
            question, history=history, cancel=cancel, trace=trace, stream_text=stream_text
        )
        async for item in items:
            if isinstance(item, AnswerReady):
                answer = item.answer
        assert answer is not None
        return answer

    def ask_sync(self, question: str, **kwargs: Any) -> Answer:
        return asyncio.run(self.ask(question, **kwargs))

    async def stream(
        self,
        question: str,
        *,
        history: Sequence[Message] = (),
        cancel: Cancellation | None = None,
        trace: TraceSink | None = None,
        stream_text: bool = True,
    ) -> AsyncIterator[Event | AnswerReady]:
        """Runtime events as they happen, then one ``AnswerReady``.

        ``stream_text``: the model streams its answers; without it each call returns whole.
        """
        seconds = question_seconds(self.limits)
        window = await self._context_window()
        asked = analyse(question, earlier_questions(history))
        runs = _Runs(self, window, question, asked, history, cancel, trace, stream_text)
        runs.deadline = None if seconds is None else time.monotonic() + seconds
        session = self.session()
        if self.mode == "agent":
            async for event in runs.run(self._agent(window, asked), question, session):
                yield event
            left = runs.seconds_left()
            if _unsearched(runs.last, session) and _enough(left):
                async for event in runs.remind(self._agent(window, asked, left), session):
                    yield event
            if _accepted(runs.last, session):
                yield AnswerReady(runs.answer(session, "agent"))
                return
            if session.registry.passages:
                async for event in runs.extract(session):
                    yield event
                yield AnswerReady(runs.answer(session, "agent"))
                return
            unsearched = _unsearched(runs.last, session)
            if not (unsearched or _needs_fallback(runs.last)) or not _enough(runs.seconds_left()):
                yield AnswerReady(runs.answer(session, "agent"))
                return
            runs.fail(NO_SEARCH if unsearched else "")
            session = self.session()
            window = runs.window = self._learn_window(window, runs.last)
        steps, pipeline = await self._pipeline(question, history, session, runs, window)
        for step in steps:
            if trace is not None:  # the fixed steps are ours, not a run's: trace them here
                trace.write(step)
            runs.shown.append(step)
            yield step
        async for event in runs.follow(pipeline):
            yield event
        if _failed(runs.last, session) and session.registry.passages:
            async for event in runs.extract(session):
                yield event
        yield AnswerReady(runs.answer(session, "pipeline"))

    def _learn_window(self, window: ContextWindow | None, run: RunResult) -> ContextWindow | None:
        """The server's own window, when a run's overflow told one smaller than assumed;
        the next runs (and later questions) are held to it."""
        overflowed = run.outcome == "context_overflow"
        told = run.error_context.get("context_window") if overflowed else None
        if not isinstance(told, int) or (window is not None and told >= window.tokens):
            return window
        self._window = ContextWindow(told, "the server's context-overflow message")
        self._runtimes.clear()
        return self._window

    async def _context_window(self) -> ContextWindow | None:
        """The model's window, asked once (its server may be probed)."""
        if self._window is None:
            self._window = await context_window_of(self.model, self.context_window)
        return self._window

    def _agent(
        self, window: ContextWindow | None, asked: Asked, seconds: float | None = None
    ) -> Agent[str]:
        """The runtime agent: its tools reach each run's session as ``deps``. Built once
        per tool-call cap (a comparison of three subjects may search and open a passage per
        subject: six calls, one more than the default five); one with ``seconds`` (what is
        left) is built anew."""
        cap = self.limits.max_tool_calls
        if cap is not None:
            cap = tool_budget(asked, cap, self.detail.keep_open)
        if seconds is None and cap in self._runtimes:
            return self._runtimes[cap]
        limits = self.limits if seconds is None else within(self.limits, seconds)
        limits = replace(limits, max_tool_calls=cap)
        agent: Agent[str] = Agent(
            self.model,
            tools=tools_for(
                (*RICH_TOOLS, *self.extra_tools) if self.rich_tools else BASIC_TOOLS,
                self.detail,
            ),
            limits=_held_to(limits, window),
            system_prompt=self.system_prompt + (OTHER_TOOLS_NOTE if self.extra_tools else ""),
        )
        if seconds is None:
            self._runtimes[cap] = agent
        return agent

    def similarity(self) -> SentenceSimilarity | None:
        """The search's embedder, to tell whether a cited sentence is close in meaning to
        the question (None: judged by words alone)."""
        embedder = self.searcher.embedder
        if embedder is not None and (
            self._similarity is None or self._similarity.embedder is not embedder
        ):
            self._similarity = SentenceSimilarity(embedder)
        return self._similarity if embedder is not None else None

    def session(self) -> ResearchSession:
        """A new research session of the asker (searches, opened passages, citation numbers)."""
        return ResearchSession(self.searcher, self.owner, self.detail, where=self.where)

    def library(self) -> Library:
        """The asker's documents, to list and read whole."""
        return Library(self.searcher.store, self.owner)

    def _pipeline_steps(
        self, query: str, session: ResearchSession, transcript: list[Message]
    ) -> Iterator[Event]:
        """The fixed steps, run by us: events as for a model's calls, and the transcript
        written as if the model had made them."""
        step_id = f"pipeline-{uuid.uuid4().hex[:8]}"
        ctx = RunContext(run_id=step_id, deps=session)
        search = ToolCall(f"{step_id}-search", search_docs.name, {"query": query})
        found = yield from _step(ctx, search_docs, search, partial(session.search, query))
        transcript += [
            AssistantMessage("", (search,)),
            ToolResultsMessage((_result(search, found),)),
        ]
        opens = [
            ToolCall(
                f"{step_id}-open-{i}",
                open_citation.name,
                {"docId": hit.doc_id, "chunkId": hit.chunk_id},
            )
            for i, hit in enumerate(found.hits[: self.detail.keep_open])
        ]
        results = []
        for c in opens:
            doc_id, chunk_id = c.arguments["docId"], c.arguments["chunkId"]
            opened = yield from _step(
                ctx, open_citation, c, partial(session.open, doc_id, chunk_id)
            )
            results.append(_result(c, opened))
        if opens:
            transcript += [AssistantMessage("", tuple(opens)), ToolResultsMessage(tuple(results))]

    async def _pipeline(
        self,
        question: str,
        history: Sequence[Message],
        session: ResearchSession,
        runs: _Runs,
        window: ContextWindow | None,
    ) -> tuple[list[Event], AgentStream]:
        """The fixed steps and the answering run, which has what is left of the question's
        time (None: no limit)."""
        transcript: list[Message] = [*history, UserMessage(question)]
        # On a worker thread: the fixed search may embed the query, milliseconds of CPU
        # that would stall every other run on a server's event loop.
        # A follow-up's search carries the conversation's subject ("and what about X?").
        query = search_query(question, history)
        steps = await asyncio.to_thread(list, self._pipeline_steps(query, session, transcript))
        limits = Limits(
            max_iterations=1, timeout=runs.seconds_left(), model_timeout=self.limits.model_timeout
        )
        answerer: Agent[str] = Agent(
            self.model, limits=_held_to(limits, window), system_prompt=self.system_prompt
        )
        prompt = UserMessage(PIPELINE_PROMPT, origin="runtime")
        return steps, runs.start(answerer, prompt, transcript)


@dataclass(slots=True)
class _Runs:
    """The runs behind one answer, in order, the events shown, and the answer they make."""

    agent: ResearchAgent
    window: ContextWindow | None
    question: str
    asked: Asked
    history: Sequence[Message]
    cancel: Cancellation | None
    trace: TraceSink | None
    stream_text: bool
    deadline: float | None = None
    done: list[RunResult] = field(default_factory=list)
    shown: list[Event] = field(default_factory=list)
    failed: RunResult | None = None
    reason: str = ""
    reminded: bool = False
    extractive: bool = False

    @property
    def last(self) -> RunResult:
        return self.done[-1]

    def seconds_left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def start(
        self,
        runtime: Agent[str],
        prompt: str | UserMessage,
        history: Sequence[Message],
        *,
        session: ResearchSession | None = None,
        first_tool_choice: UseTool | None = None,
    ) -> AgentStream:
        return runtime.stream(
            prompt,
            history=history,
            deps=session,
            cancel=self.cancel,
            trace=self.trace,
            first_tool_choice=first_tool_choice or "auto",
            stream_text=self.stream_text,
        )

    async def follow(self, stream: AgentStream) -> AsyncIterator[Event]:
        async for event in stream:
            self.shown.append(event)
            yield event
        self.done.append(stream.result)

    def run(
        self, runtime: Agent[str], question: str, session: ResearchSession
    ) -> AsyncIterator[Event]:
        return self.follow(self.start(runtime, question, self.history, session=session))

    def remind(self, runtime: Agent[str], session: ResearchSession) -> AsyncIterator[Event]:
        """Once more, after the answer that searched nothing: the first call must search."""
        self.reminded = True
        stream = self.start(
            runtime,
            UserMessage(SEARCH_FIRST_PROMPT, origin="runtime"),
            self.last.messages,
            session=session,
            first_tool_choice=UseTool(search_docs.name),
        )
        return self.follow(stream)

    def extract(self, session: ResearchSession) -> AsyncIterator[Event]:
        """The extractive answer from the passages the last (failed) run opened.

        They are given whole, under their numbers, as freshly opened: in the failed run's
        transcript they may have been evicted to fit the window.
        """
        self.fail()
        self.extractive = True
        chunks = list(session.registry.passages.values())
        opens = tuple(
            ToolCall(f"extract-{i}", open_citation.name, {"docId": c.doc_id, "chunkId": c.id})
            for i, c in enumerate(chunks)
        )
        results = tuple(
            _result(call, session.open(chunk.doc_id, chunk.id))
            for call, chunk in zip(opens, chunks, strict=True)
        )
        transcript: list[Message] = [
            *self.history,
            UserMessage(self.question),
            AssistantMessage("", opens),
            ToolResultsMessage(results),
        ]
        answerer: Agent[str] = Agent(
            OfflineModel(embedder=self.agent.searcher.embedder, thresholds=self.agent.thresholds),
            limits=Limits(max_iterations=1),
            system_prompt=self.agent.system_prompt,
        )
        prompt = UserMessage(PIPELINE_PROMPT, origin="runtime")
        return self.follow(self.start(answerer, prompt, transcript))

    def fail(self, reason: str = "") -> None:
        """The last run failed: what answers next is a fallback."""
        if self.failed is None:
            self.failed = self.last
            self.reason = reason or f"{self.last.outcome}: {self.last.reason}"

    def answer(self, session: ResearchSession, mode: Mode) -> Answer:
        run = self.last
        text = run.output if isinstance(run.output, str) else ""
        checked: Verification = verify(text, session.registry)
        store, owner = session.searcher.store, session.owner
        similarity = for_the_score(self.agent.similarity())
        relevance = assess_answer(
            self.asked,
            checked,
            session.registry.passages,
            similarity,
            self.agent.trust,
            installed_reader() if similarity is not None else None,
        )
        return Answer(
            question=self.question,
            answer=checked.answer,
            citations=locate(checked.citations, store, owner),
            outcome=run.outcome,
            forced=run.forced,
            fallback=self.failed is not None,
            fallback_reason=self.reason,
            mode=mode,
            mode_reason=self.agent.mode_reason,
            removed_citations=checked.removed,
            unsupported_claims=checked.unsupported_claims,
            run=run,
            failed_run=self.failed,
            events=tuple(self.shown),
            claims=tuple(
                replace(claim, citations=locate(claim.citations, store, owner))
                for claim in checked.claims
            ),
            earlier_runs=tuple(self.done[:-1]),
            reminded=self.reminded,
            extractive=self.extractive,
            model=self.agent.model.name,
            model_choice="; ".join(
                note for note in (self.agent.model_choice, protocol_note(self.agent.model)) if note
            ),
            context_window=self.window,
            relevance=relevance,
        )


def _held_to(limits: Limits, window: ContextWindow | None) -> Limits:
    return limits.with_context_window(window.tokens) if window is not None else limits


def _enough(seconds: float | None) -> bool:
    """Time enough for another run (None: no limit)."""
    return seconds is None or seconds >= MIN_FALLBACK_SECONDS


def _unsearched(run: RunResult, session: ResearchSession) -> bool:
    """An answer given without a single tool that worked: no search, nothing read, no
    other tool (an MCP server's) either."""
    text = run.output if isinstance(run.output, str) else ""
    return bool(text.strip()) and not _researched(run, session)


def _researched(run: RunResult, session: ResearchSession) -> bool:
    used = any(isinstance(e, ToolCallFinished) and e.ok for e in run.events)
    return bool(session.searches or session.registry.passages) or used


def _accepted(run: RunResult, session: ResearchSession) -> bool:
    """The run's result stands: a cancellation, or an answer after researching."""
    if run.outcome == "cancelled":
        return True
    return _researched(run, session) and not _failed(run, session)


def _failed(run: RunResult, session: ResearchSession) -> bool:
    """The run gave no answer, or the model failed (a forced answer after a model error or
    a protocol failure is not kept when passages were opened)."""
    if run.outcome == "cancelled":
        return False
    text = run.output if isinstance(run.output, str) else ""
    return not text.strip() or (run.outcome in FAILED_MODEL and bool(session.registry.passages))


def _needs_fallback(run: RunResult) -> bool:
    """A run that left no answer text (a model error, a limit, a forced synthesis that
    wrote nothing); not one that was cancelled, ran out of time, or whose model server
    could not be reached or did not answer in time: the pipeline would ask the same model."""
    text = run.output if isinstance(run.output, str) else ""
    unreachable = isinstance(run.error, ModelConnectionError)
    return not text.strip() and run.outcome not in ("cancelled", "timeout") and not unreachable


def _step(
    ctx: RunContext[ResearchSession], tool: Tool, call: ToolCall, work: Callable[[], V]
) -> Generator[Event, None, V]:
    """One pipeline step, run by us, as the same events the runtime gives a model's call."""
    yield ToolCallStarted(
        run_id=ctx.run_id,
        call_id=call.id,
        name=call.name,
        input=call.arguments,
        iteration=0,
        action=tool.action,
        message=tool.description_of(call.arguments, ctx),
    )
    started = time.perf_counter()
    value = work()
    yield ToolCallFinished(
        run_id=ctx.run_id,
        call_id=call.id,
        name=call.name,
        input=call.arguments,
        output=value.for_model(),
        output_summary=value.summary(),
        ok=True,
        duration_ms=(time.perf_counter() - started) * 1000,
        iteration=0,
        action=tool.action,
        value=value,
    )
    return value


def _result(call: ToolCall, value: ToolOutput) -> ToolResult:
    return ToolResult(call.id, call.name, value.for_model(), value=value)
