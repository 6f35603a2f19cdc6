"""The research agent: cited answers over one user's documents.

Agent mode (default): the model chooses searches, refines them, opens what it
needs and answers, within 5 tool calls and 5 iterations. Pipeline mode: one
fixed search, open the top passages, answer; it is also the fallback when an
agent run ends in a model error or a limit without an answer.
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
from docuchat.agent.tools import ToolOutput
from docuchat.agent.trace import TraceSink
from docuchat.models.base import (
    AssistantMessage,
    Message,
    Model,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    UserMessage,
)
from docuchat.research.citations import Citation, Verification, declines, verify
from docuchat.research.prompts import PIPELINE_PROMPT, SYSTEM_PROMPT
from docuchat.research.questions import Asked, analyse, earlier_questions, tool_budget
from docuchat.research.relevance import THRESHOLDS, AnswerRelevance, Thresholds, assess_answer
from docuchat.research.similarity import SentenceSimilarity
from docuchat.research.tools import (
    BASIC_TOOLS,
    RICH_TOOLS,
    ResearchSession,
    open_citation,
    search_docs,
)
from docuchat.search.hybrid import HybridSearcher
from docuchat.store.base import DocumentFilter

Mode = Literal["agent", "pipeline"]
Presentation = Literal["answer", "partial", "not_an_answer", "unsupported", "declined"]
V = TypeVar("V", bound=ToolOutput)

DEFAULT_LIMITS = Limits(
    max_tool_calls=5,
    max_iterations=5,
    on_max_tool_calls="synthesize",
    on_max_iterations="synthesize",
    timeout=120,
    on_timeout="synthesize",
)
PIPELINE_OPENS = 3


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
        if self.abstained:
            return "declined"
        if not self.verified_count:
            return "unsupported"
        if self.relevance is None or self.relevance.addresses:
            return "answer"
        return "partial" if self.relevance.addressed_parts else "not_an_answer"

    def addresses(self, n: int) -> bool | None:
        """Whether citation ``n``'s quote addresses the question (None: not judged)."""
        if self.relevance is None or n not in self.relevance.citations:
            return None
        return self.relevance.citations[n].addresses

    @property
    def messages(self) -> tuple[Message, ...]:
        return self.run.messages

    def citation_dicts(self) -> list[dict[str, Any]]:
        return [
            {
                "n": c.n,
                "title": c.title,
                "doc_id": c.doc_id,
                "chunk_id": c.chunk_id,
                "page": c.page,
                "span": [c.start, c.end],
                "quote": c.quote,
                "verified": c.verified,
                "support": c.support,
                "addresses": self.addresses(c.n),
                "relevance": self._judged(c.n),
            }
            for c in self.citations
        ]

    def _judged(self, n: int) -> dict[str, Any] | None:
        if self.relevance is None or n not in self.relevance.citations:
            return None
        return self.relevance.citations[n].judged.as_dict()

    def to_dict(self, *, trace: bool = True) -> dict[str, Any]:
        """The result as JSON-ready data; ``trace=False`` leaves out the run's events."""
        result = {
            "question": self.question,
            "answer": self.answer,
            "citations": self.citation_dicts(),
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
            "usage": self.run.usage.as_dict(),
        }
        if trace:
            runs = [r for r in (self.failed_run, self.run) if r is not None]
            result["trace"] = [event_to_dict(e) for r in runs for e in r.events]
        return result


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
    k: int = 8
    where: DocumentFilter | None = None
    system_prompt: str = SYSTEM_PROMPT
    thresholds: Thresholds = THRESHOLDS
    """How much of the question a cited sentence must carry to address it."""
    _similarity: SentenceSimilarity | None = field(default=None, init=False, repr=False)
    _runtimes: dict[int | None, Agent[str]] = field(default_factory=dict, init=False, repr=False)

    async def ask(
        self,
        question: str,
        *,
        history: Sequence[Message] = (),
        cancel: Cancellation | None = None,
        trace: TraceSink | None = None,
    ) -> Answer:
        answer: Answer | None = None
        async for item in self.stream(question, history=history, cancel=cancel, trace=trace):
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
    ) -> AsyncIterator[Event | AnswerReady]:
        """Runtime events as they happen, then one ``AnswerReady``."""
        session = self._session()
        failed: RunResult | None = None
        asked = analyse(question, earlier_questions(history))
        if self.mode == "agent":
            stream = self._agent(asked).stream(
                question, history=history, deps=session, cancel=cancel, trace=trace
            )
            async for event in stream:
                yield event
            run = stream.result
            if not _needs_fallback(run):
                yield AnswerReady(self._answer(question, asked, run, session, "agent"))
                return
            failed, session = run, self._session()
        steps, pipeline = await self._pipeline(question, history, session, cancel, trace)
        for step in steps:
            if trace is not None:  # the fixed steps are ours, not a run's: trace them here
                trace.write(step)
            yield step
        async for event in pipeline:
            yield event
        yield AnswerReady(
            self._answer(question, asked, pipeline.result, session, "pipeline", failed)
        )

    def _agent(self, asked: Asked) -> Agent[str]:
        """The runtime agent, built once per tool-call cap: its tools reach each run's session
        as ``deps``. A comparison of three subjects may make a search and open a passage per
        subject: six tool calls, one more than the default five."""
        cap = self.limits.max_tool_calls
        if cap is not None:
            cap = tool_budget(asked, cap)
        if cap not in self._runtimes:
            self._runtimes[cap] = Agent(
                self.model,
                tools=RICH_TOOLS if self.rich_tools else BASIC_TOOLS,
                limits=replace(self.limits, max_tool_calls=cap),
                system_prompt=self.system_prompt,
            )
        return self._runtimes[cap]

    def _similar(self) -> SentenceSimilarity | None:
        """The search's embedder, to tell whether a cited sentence is close in meaning to
        the question (None: judged by words alone)."""
        embedder = self.searcher.embedder
        if embedder is not None and (
            self._similarity is None or self._similarity.embedder is not embedder
        ):
            self._similarity = SentenceSimilarity(embedder)
        return self._similarity if embedder is not None else None

    def _session(self) -> ResearchSession:
        return ResearchSession(self.searcher, self.owner, k=self.k, where=self.where)

    def _pipeline_steps(
        self, question: str, session: ResearchSession, transcript: list[Message]
    ) -> Iterator[Event]:
        """The fixed steps, run by us: events as for a model's calls, and the transcript
        written as if the model had made them."""
        step_id = f"pipeline-{uuid.uuid4().hex[:8]}"
        ctx = RunContext(run_id=step_id, deps=session)
        search = ToolCall(f"{step_id}-search", search_docs.name, {"query": question})
        found = yield from _step(ctx, search_docs, search, partial(session.search, question))
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
            for i, hit in enumerate(found.hits[:PIPELINE_OPENS])
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
        cancel: Cancellation | None,
        trace: TraceSink | None,
    ) -> tuple[list[Event], AgentStream]:
        transcript: list[Message] = [*history, UserMessage(question)]
        # On a worker thread: the fixed search may embed the query, milliseconds of CPU
        # that would stall every other run on a server's event loop.
        steps = await asyncio.to_thread(list, self._pipeline_steps(question, session, transcript))
        answerer: Agent[str] = Agent(
            self.model,
            limits=Limits(max_iterations=1, timeout=self.limits.timeout),
            system_prompt=self.system_prompt,
        )
        prompt = UserMessage(PIPELINE_PROMPT, origin="runtime")
        stream = answerer.stream(prompt, history=transcript, cancel=cancel, trace=trace)
        return steps, stream

    def _answer(
        self,
        question: str,
        asked: Asked,
        run: RunResult,
        session: ResearchSession,
        mode: Mode,
        failed: RunResult | None = None,
    ) -> Answer:
        text = run.output if isinstance(run.output, str) else ""
        checked: Verification = verify(text, session.registry)
        verified = {c.n: c.verified for c in checked.citations}
        opened = session.registry.passages
        return Answer(
            question=question,
            answer=checked.answer,
            citations=checked.citations,
            outcome=run.outcome,
            forced=run.forced,
            fallback=failed is not None,
            fallback_reason=f"{failed.outcome}: {failed.reason}" if failed else "",
            mode=mode,
            removed_citations=checked.removed,
            unsupported_claims=checked.unsupported_claims,
            run=run,
            failed_run=failed,
            relevance=assess_answer(
                asked, checked.answer, verified, opened, self._similar(), self.thresholds
            ),
        )


def _needs_fallback(run: RunResult) -> bool:
    """A failed run without an answer (a model error, or a limit that left none)."""
    return run.output is None and run.outcome != "cancelled"


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
