"""The agent loop: iterative, bounded, observable.

One iteration = one model call, then every tool call of that response
(concurrently, results appended in call order). Each step returns an explicit
next step, and every way out of the loop is a typed outcome:

    run ─▶ attempt ─▶ iteration ─┬─▶ Final        answer (validated when an output tool is set)
                ▲                ├─▶ Retry        validation failed: feedback, new attempt
                └────────────────┤
                                 └─▶ Stop         a limit, cancellation, model error, stuck

A limit whose action is "synthesize" makes one last call with tools disabled
and an anti-confabulation prompt; that answer is marked ``forced``. Every stop
is built from one table (``stops.STOP_RULES``): its outcome, error code, action
and whether it is reported as ``limit_reached``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from docuchat.agent import prompts
from docuchat.agent.callbacks import Callbacks, EventSink
from docuchat.agent.cancel import Cancellation
from docuchat.agent.context import apply_retention, evict_oldest, is_stub
from docuchat.agent.events import (
    AttemptStarted,
    ContextEvicted,
    Event,
    FinalAnswer,
    LimitReached,
    ModelRequested,
    ModelResponded,
    RunFailed,
    RunStarted,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    ValidationFailed,
)
from docuchat.agent.limits import Limits
from docuchat.agent.output import SUBMIT_TOOL, OutputRejected, OutputTool
from docuchat.agent.result import ErrorCode, ModelCall, Outcome, Price, RunResult, Usage
from docuchat.agent.stops import StopReason, stop_rule
from docuchat.agent.tools import InvalidArguments, RunContext, Tool, format_output, summary_of
from docuchat.agent.trace import TraceSink
from docuchat.errors import ContextOverflow, ModelError
from docuchat.models.base import (
    AssistantMessage,
    Message,
    Model,
    ModelRequest,
    ModelResponse,
    TextChunk,
    TokenUsage,
    ToolCall,
    ToolChoice,
    ToolResult,
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
)
from docuchat.models.tokens import (
    PROSE_CHARS_PER_TOKEN,
    TokenEstimator,
    message_tokens,
    tools_tokens,
)

T = TypeVar("T")
Phase = Literal["before_model_call", "model_call", "before_tool", "tool_execution", "synthesis"]


# ── next steps ──────────────────────────────────────────────────────────────
@dataclass(frozen=True, slots=True)
class _Final:
    output: Any


@dataclass(frozen=True, slots=True)
class _Retry:
    error: str


@dataclass(frozen=True, slots=True)
class _Stop:
    outcome: Outcome
    error_code: ErrorCode | None
    reason: str
    phase: str | None = None
    synthesize: bool = False
    context: Mapping[str, Any] = field(default_factory=dict)
    error: ModelError | None = None


_Step = _Final | _Retry | _Stop | None  # None: run another iteration


@dataclass(frozen=True, slots=True)
class _Job:
    """A validated tool call waiting to run."""

    index: int
    tool: Tool
    args: dict[str, Any]
    key: str


class _Overflowed(Exception):
    """The server refused a request as too long; ``fixed`` is what the runtime estimated."""

    def __init__(self, error: ContextOverflow, fixed: float) -> None:
        self.error = error
        self.fixed = fixed


class _Interrupted(Exception):
    """Cancellation or the run's deadline hit while awaiting something."""

    def __init__(self, stop: _Stop) -> None:
        self.stop = stop


class Agent(Generic[T]):
    """A model, its tools and its limits. Reusable: each run has its own state."""

    def __init__(
        self,
        model: Model,
        *,
        tools: Sequence[Tool] = (),
        limits: Limits | None = None,
        system_prompt: str = "",
        output: OutputTool[Any] | None = None,
        callbacks: Callbacks | None = None,
        price: Price | None = None,
    ) -> None:
        names = [t.name for t in tools] + ([output.name] if output else [])
        if output is not None and output.reflection is not None:
            names.append(SUBMIT_TOOL.name)  # reflection injects `submit`: no tool may take it
        if len(set(names)) != len(names):
            raise ValueError(f"tool names must be unique: {names}")
        self.model = model
        self.tools = {t.name: t for t in tools}
        self.limits = limits or Limits()
        self.system_prompt = system_prompt
        self.output = output
        self.callbacks = callbacks or Callbacks()
        self.price = price
        specs = [t.spec for t in tools]
        if output is not None:
            specs.append(output.spec)
            if output.reflection is not None:
                specs.append(SUBMIT_TOOL)
        self.specs: tuple[ToolSpec, ...] = tuple(specs)
        self.limits_dict = self.limits.as_dict()
        system = len(system_prompt) / PROSE_CHARS_PER_TOKEN
        # Fixed-ratio tokens of what every request repeats: the system prompt (and the tools).
        self.base_tokens = {"step": system + tools_tokens(self.specs), "synthesis": system}

    async def run(
        self,
        input: str | UserMessage,
        *,
        history: Sequence[Message] = (),
        deps: Any = None,
        cancel: Cancellation | None = None,
        trace: TraceSink | None = None,
        first_tool_choice: ToolChoice = "auto",
    ) -> RunResult:
        """One run; ``first_tool_choice`` applies to its first model call only (a forced
        choice, ``UseTool``, makes the model call that tool)."""
        run = _Run(self, input, history, deps, cancel, trace, None, first_tool_choice)
        return await run.execute(stream=False)

    def run_sync(self, input: str | UserMessage, **kwargs: Any) -> RunResult:
        return asyncio.run(self.run(input, **kwargs))

    def stream(
        self,
        input: str | UserMessage,
        *,
        history: Sequence[Message] = (),
        deps: Any = None,
        cancel: Cancellation | None = None,
        trace: TraceSink | None = None,
        first_tool_choice: ToolChoice = "auto",
        stream_text: bool = True,
    ) -> AgentStream:
        """Events as they happen; ``.result`` once exhausted.

        ``stream_text``: the model streams its answer (``text_delta`` events); without it
        each model call returns whole, as ``run`` makes them. ``first_tool_choice``: as
        for ``run``.
        """
        return AgentStream(
            self, input, history, deps, cancel, trace, stream_text, first_tool_choice
        )


class AgentStream:
    """``async for event in agent.stream(q)``; then ``stream.result``."""

    def __init__(
        self,
        agent: Agent[Any],
        input: str | UserMessage,
        history: Sequence[Message],
        deps: Any,
        cancel: Cancellation | None,
        trace: TraceSink | None,
        stream_text: bool = True,
        first_tool_choice: ToolChoice = "auto",
    ) -> None:
        self._queue: asyncio.Queue[Event | None] = asyncio.Queue()
        self._run = _Run(agent, input, history, deps, cancel, trace, self._queue, first_tool_choice)
        self._stream_text = stream_text
        self._result: RunResult | None = None

    @property
    def result(self) -> RunResult:
        if self._result is None:
            raise RuntimeError("the stream has not finished yet")
        return self._result

    async def __aiter__(self) -> AsyncIterator[Event]:
        task = asyncio.create_task(self._run.execute(stream=self._stream_text))
        task.add_done_callback(lambda _t: self._queue.put_nowait(None))
        try:
            while (event := await self._queue.get()) is not None:
                yield event
            self._result = task.result()
        finally:
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)


class _Run:
    """The state of one run. Not reusable."""

    def __init__(
        self,
        agent: Agent[Any],
        input: str | UserMessage,
        history: Sequence[Message],
        deps: Any,
        cancel: Cancellation | None,
        trace: TraceSink | None,
        queue: asyncio.Queue[Event | None] | None,
        first_tool_choice: ToolChoice = "auto",
    ) -> None:
        self.agent = agent
        self.limits = agent.limits
        message = input if isinstance(input, UserMessage) else UserMessage(input)
        self.input = message.content
        self.id = uuid.uuid4().hex[:12]
        self.messages: list[Message] = [*history, message]
        self.cancel = cancel
        self.ctx: RunContext[Any] = RunContext(run_id=self.id, deps=deps)
        self.sink = EventSink(agent.callbacks, trace, queue)
        self.usage = Usage(price=agent.price)
        # Adapters of real providers carry an estimator calibrated from reported usage;
        # other models (scripted, offline) get the fixed role-aware ratios.
        own: TokenEstimator | None = getattr(agent.model, "token_estimator", None)
        self.estimator = own or TokenEstimator()
        self.calibrate = own is not None
        self.started = time.monotonic()
        self.deadline = self.started + self.limits.timeout if self.limits.timeout else None
        self.attempt = 0
        self.iteration = 0
        self.tool_calls = 0
        self.repeats = 0
        self.seen: dict[str, ToolResult] = {}  # successful call key -> its result
        self.pending_output: Any = None  # reflection mode: the last output shown to the model
        self.streaming = False
        self.first_tool_choice = first_tool_choice  # for the first model call only
        self.keep_last = {t.name: t.keep_last for t in agent.tools.values() if t.keep_last}
        self._sizes: dict[int, tuple[Message, float]] = {}  # id -> (message, fixed-ratio tokens)

    # ── top level ───────────────────────────────────────────────────────────
    async def execute(self, *, stream: bool) -> RunResult:
        self.streaming = stream
        tool_names = (*self.agent.tools, *([self.agent.output.name] if self.agent.output else ()))
        self.emit(
            RunStarted(
                run_id=self.id,
                input=self.input,
                model=getattr(self.agent.model, "name", type(self.agent.model).__name__),
                tools=tuple(tool_names),
                limits=self.agent.limits_dict,
            )
        )
        try:
            step = await self._attempts()
            if isinstance(step, _Stop) and step.synthesize:
                return await self._synthesize(step)
            return self._finish(step)
        except _Interrupted as interrupted:
            if interrupted.stop.synthesize:
                return await self._synthesize(interrupted.stop)
            return self._finish(interrupted.stop)

    async def _attempts(self) -> _Final | _Stop:
        attempts = self.limits.max_validation_attempts if self.agent.output else 1
        last_error = ""
        for attempt in range(1, attempts + 1):
            self.attempt = attempt
            self.emit(AttemptStarted(run_id=self.id, attempt=attempt))
            step = await self._iterate()
            if not isinstance(step, _Retry):
                return step
            last_error = step.error
            self.emit(ValidationFailed(run_id=self.id, attempt=attempt, error=step.error))
            name = self.agent.output.name if self.agent.output else "final_result"
            self.messages.append(
                _injected(prompts.validation_feedback(step.error, attempt, attempts, name))
            )
        return self._stop(
            "max_validation_attempts",
            f"output failed validation {attempts} times; last error: {last_error}",
            max_validation_attempts=attempts,
        )

    async def _iterate(self) -> _Final | _Retry | _Stop:
        empties = 0
        for iteration in range(1, self.limits.max_iterations + 1):
            self.iteration = self.ctx.iteration = iteration
            gate = self._gate()
            if gate is not None:
                return gate
            response = await self._call_model(self._request(), "step")
            if response.finish_reason == "protocol_error":
                return self._stop(
                    "protocol_error",
                    "the model did not follow the tool protocol, even after a reminder",
                )
            if response.is_empty:
                empties += 1
                if empties >= self.limits.max_empty_responses:
                    return self._stop(
                        "empty_responses",
                        f"{empties} consecutive empty model responses",
                        max_empty_responses=self.limits.max_empty_responses,
                    )
                self.messages.append(_injected(prompts.EMPTY_RESPONSE_NUDGE))
                continue
            empties = 0
            self.messages.append(AssistantMessage(response.text, response.tool_calls))
            if not response.tool_calls:
                if self.agent.output is not None:
                    return self._stop(
                        "no_output_call",
                        f"the model answered without calling `{self.agent.output.name}`",
                    )
                return _Final(response.text)
            step = await self._run_tools(response.tool_calls)
            if step is not None:
                return step
        return self._stop(
            "max_iterations",
            f"{self.limits.max_iterations} iterations",
            max_iterations=self.limits.max_iterations,
        )

    # ── gates and limits ────────────────────────────────────────────────────
    def _check_interrupt(self, phase: Phase) -> None:
        if self.cancel is not None and self.cancel.cancelled:
            raise _Interrupted(self._cancelled(phase))
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise _Interrupted(self._timed_out())

    def _gate(self) -> _Stop | None:
        """Before every model call: cancellation, deadline, token budget, context window."""
        self._check_interrupt("before_model_call")
        self._retain()
        if self.limits.token_budget is not None:
            left = self.limits.token_budget - self.usage.total_tokens
            if left < self.limits.min_round_budget:
                return self._stop(
                    "token_budget",
                    f"{left} of {self.limits.token_budget} tokens left",
                    token_budget=self.limits.token_budget,
                )
        if self.limits.context_window is not None:
            self._fit_context()
            left = self.limits.context_window - self._estimate()
            if left < self.limits.min_round_budget:
                return self._stop(
                    "context_window",
                    f"{left} tokens left in the context window",
                    context_window=self.limits.context_window,
                )
        return None

    def _stop(
        self,
        reason: StopReason,
        detail: str,
        *,
        phase: str | None = None,
        error: ModelError | None = None,
        **limit: Any,
    ) -> _Stop:
        """The one way to stop: the rule's outcome, code and action; a limit is reported."""
        rule = stop_rule(reason)
        action = rule.resolve(self.limits)
        if rule.limit is not None:
            self.emit(LimitReached(run_id=self.id, limit=rule.limit, action=action, detail=detail))
        context = {"attempt": self.attempt, "iteration": self.iteration, **limit}
        return _Stop(
            rule.outcome,
            rule.code,
            detail,
            phase=phase,
            synthesize=action == "synthesize",
            context=context,
            error=error,
        )

    def _cancelled(self, phase: str) -> _Stop:
        reason = self.cancel.reason if self.cancel else "cancelled"
        return self._stop("cancelled", reason, phase=phase)

    def _timed_out(self) -> _Stop:
        detail = f"run exceeded {self.limits.timeout}s"
        return self._stop("timeout", detail, timeout=self.limits.timeout)

    # ── context ─────────────────────────────────────────────────────────────
    def _request(self, purpose: Literal["step", "synthesis"] = "step") -> ModelRequest:
        cap = self.limits.max_output_tokens
        if purpose == "synthesis":
            return ModelRequest(
                self.agent.system_prompt,
                tuple(self.messages),
                (),
                tool_choice="none",
                max_output_tokens=cap,
            )
        choice, self.first_tool_choice = self.first_tool_choice, "auto"
        return ModelRequest(
            self.agent.system_prompt,
            tuple(self.messages),
            self.agent.specs,
            tool_choice=choice,
            max_output_tokens=cap,
        )

    def _summarize(self, result: ToolResult) -> str:
        return summary_of(result.value, result.content)

    def _retain(self) -> None:
        if not self.keep_last:
            return
        before = self._estimate()
        evicted = apply_retention(self.messages, self.keep_last, self._summarize)
        if evicted:
            self.emit(
                ContextEvicted(
                    run_id=self.id,
                    call_ids=tuple(evicted),
                    tokens_before=before,
                    tokens_after=self._estimate(),
                    reason="retention",
                )
            )

    def _fit_context(self, purpose: Literal["step", "synthesis"] = "step") -> None:
        """Evict until the next call fits: the request, and the room the gate keeps free
        (for a tool round, or for the forced synthesis's answer)."""
        window = self.limits.context_window
        assert window is not None
        target = window - self.limits.min_round_budget
        before = self._estimate(purpose)
        if before <= target:
            return
        evicted = evict_oldest(
            self.messages, lambda _m: self._estimate(purpose) <= target, self._summarize
        )
        if evicted:
            after = self._estimate(purpose)
            self.emit(
                ContextEvicted(
                    run_id=self.id,
                    call_ids=tuple(evicted),
                    tokens_before=before,
                    tokens_after=after,
                    reason="context_window",
                )
            )

    def _fixed_tokens(self, purpose: Literal["step", "synthesis"]) -> float:
        """Fixed-ratio tokens of the next request; each message is measured once."""
        total = self.agent.base_tokens[purpose]
        for message in self.messages:
            known = self._sizes.get(id(message))
            if known is None or known[0] is not message:
                known = self._sizes[id(message)] = (message, message_tokens(message))
            total += known[1]
        return total

    def _estimate(self, purpose: Literal["step", "synthesis"] = "step") -> int:
        return self.estimator.calibrated(self._fixed_tokens(purpose))

    # ── the model ───────────────────────────────────────────────────────────
    async def _call_model(
        self, request: ModelRequest, purpose: Literal["step", "synthesis"]
    ) -> ModelResponse:
        try:
            return await self._call_model_once(request, purpose)
        except _Overflowed as overflowed:
            if not self._refit(overflowed.error, overflowed.fixed, purpose):
                raise _Interrupted(self._overflow_stop(overflowed.error, purpose)) from None
        # Sent again once, with the estimate corrected by the server's own count.
        request = dataclasses.replace(
            request,
            messages=tuple(self.messages),
            max_output_tokens=self.limits.max_output_tokens,
        )
        try:
            return await self._call_model_once(request, purpose)
        except _Overflowed as overflowed:
            raise _Interrupted(self._overflow_stop(overflowed.error, purpose)) from None

    def _refit(
        self, error: ContextOverflow, fixed: float, purpose: Literal["step", "synthesis"]
    ) -> bool:
        """After an overflow the server counted: learn its count (and its window, when smaller
        than assumed), evict to fit; whether a second try can fit (something was evicted)."""
        window = self.limits.context_window
        if error.prompt_tokens is None or window is None:
            return False
        if error.context_window is not None and error.context_window < window:
            self.limits = self.limits.with_context_window(error.context_window)
        self.estimator.observe_fixed(fixed, error.prompt_tokens)
        stubs = self._stub_count()
        self._fit_context(purpose)
        return self._stub_count() > stubs

    def _stub_count(self) -> int:
        return sum(
            is_stub(r)
            for m in self.messages
            if isinstance(m, ToolResultsMessage)
            for r in m.results
        )

    def _overflow_stop(
        self, error: ContextOverflow, purpose: Literal["step", "synthesis"]
    ) -> _Stop:
        return self._stop(
            "context_overflow",
            str(error),
            phase="synthesis" if purpose == "synthesis" else "model_call",
            error=error,
            context_window=error.context_window,
            prompt_tokens=error.prompt_tokens,
        )

    async def _call_model_once(
        self, request: ModelRequest, purpose: Literal["step", "synthesis"]
    ) -> ModelResponse:
        fixed = self._fixed_tokens(purpose)
        self.emit(
            ModelRequested(
                run_id=self.id,
                attempt=self.attempt,
                iteration=self.iteration,
                purpose=purpose,
                message_count=len(request.messages),
                estimated_input_tokens=self.estimator.calibrated(fixed),
            )
        )
        started = time.perf_counter()
        phase: Phase = "synthesis" if purpose == "synthesis" else "model_call"
        try:
            response = await self._guard(self._model_response(request), phase)
        except ContextOverflow as exc:
            raise _Overflowed(exc, fixed) from None
        except ModelError as exc:
            stop = self._stop("model_error", str(exc), phase=phase, error=exc)
            raise _Interrupted(stop) from None
        except _Interrupted:
            raise
        except Exception as exc:  # a model that breaks its contract still ends the run typed
            detail = f"{type(exc).__name__}: {exc}"
            raise _Interrupted(self._stop("model_error", detail, phase=phase)) from None
        latency = (time.perf_counter() - started) * 1000
        usage = response.usage
        if self.calibrate and usage is not None and response.requests == 1:
            self.estimator.observe_fixed(fixed, usage.input_tokens)
        reported = usage is not None
        if usage is None:  # counted by estimate, so that budgets and reports still see it
            answer = AssistantMessage(response.text, response.tool_calls)
            usage = TokenUsage(self.estimator.calibrated(fixed), round(message_tokens(answer)))
        self.usage.model_calls.append(
            ModelCall(
                self.attempt,
                self.iteration,
                purpose,
                usage.input_tokens,
                usage.output_tokens,
                latency,
                reported,
            )
        )
        self.emit(
            ModelResponded(
                run_id=self.id,
                attempt=self.attempt,
                iteration=self.iteration,
                text=response.text,
                tool_calls=tuple(
                    {"id": c.id, "name": c.name, "arguments": dict(c.arguments)}
                    for c in response.tool_calls
                ),
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                latency_ms=latency,
            )
        )
        return response

    async def _model_response(self, request: ModelRequest) -> ModelResponse:
        if not self.streaming:
            return await self.agent.model.complete(request)
        final: ModelResponse | None = None
        async for item in self.agent.model.stream(request):
            if isinstance(item, TextChunk):
                if item.text:
                    self.emit(TextDelta(run_id=self.id, text=item.text))
            else:
                final = item
        if final is None:
            raise ModelError(f"{self.agent.model.name}: stream ended without a response")
        return final

    async def _guard(self, awaitable: Awaitable[T], phase: Phase) -> T:
        """Await, but give way at once to cancellation, the run's deadline or, for a model
        call, ``Limits.model_timeout``.

        The work runs as a task of its own, which a cancel or the deadline
        cancels; the run's own task is never cancelled from here. (One task
        and one callback per guard: racing a second task with ``asyncio.wait``
        cost the served conversations about twice as much.)
        """
        per_call = self.limits.model_timeout if phase in ("model_call", "synthesis") else None
        if self.cancel is None and self.deadline is None and per_call is None:
            return await awaitable
        work = asyncio.ensure_future(awaitable)
        interrupted = False

        def interrupt() -> None:
            nonlocal interrupted
            interrupted = True
            work.cancel()

        delay = None
        if self.deadline is not None:
            grace = self.limits.synthesis_grace if phase == "synthesis" else 0.0
            delay = max(0.0, self.deadline + grace - time.monotonic())
        call_timed_out = per_call is not None and (delay is None or per_call < delay)
        if call_timed_out:
            delay = per_call
        timer = None if delay is None else asyncio.get_running_loop().call_later(delay, interrupt)
        forget = self.cancel.on_cancel(interrupt) if self.cancel is not None else None
        try:
            return await work
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if not interrupted or (current is not None and current.cancelling()):
                raise  # the run itself is being cancelled, not just this step
        finally:
            if timer is not None:
                timer.cancel()
            if forget is not None:
                forget()
        if self.cancel is not None and self.cancel.cancelled:
            raise _Interrupted(self._cancelled(phase))
        if call_timed_out:
            detail = f"the model did not answer within {per_call:g}s"
            raise _Interrupted(self._stop("model_timeout", detail, model_timeout=per_call))
        if phase == "synthesis":
            raise _Interrupted(self._stop("synthesis_timeout", "forced synthesis timed out"))
        raise _Interrupted(self._timed_out())

    # ── tools ───────────────────────────────────────────────────────────────
    async def _run_tools(self, calls: Sequence[ToolCall]) -> _Step:
        """Execute one response's calls; append their results in call order."""
        results: list[ToolResult | None] = [None] * len(calls)
        jobs: list[_Job] = []
        step: _Step = None
        output = self.agent.output
        over_limit = False
        for index, call in enumerate(calls):
            self.emit(self._started(call))
            if output is not None and call.name in (output.name, SUBMIT_TOOL.name):
                result, code, outcome = self._output_call(call, output)
                results[index] = self._finished(call, result, 0.0, code=code)
                step = outcome or step
                continue
            key = _call_key(call)
            if key in self.seen:
                self.repeats += 1
                earlier = self.seen[key]
                content = f"{earlier.content}\n{prompts.REPEATED_CALL_NOTE}"
                repeated = ToolResult(call.id, call.name, content, value=earlier.value)
                results[index] = self._finished(call, repeated, 0.0, repeated=True)
                continue
            tool = self._resolve(call)
            if isinstance(tool, tuple):
                problem, code = tool
                results[index] = self._finished(call, problem, 0.0, code=code)
                continue
            cap = self.limits.max_tool_calls
            if cap is not None and self.tool_calls >= cap:
                over_limit = True
                results[index] = self._finished(
                    call,
                    _error(call, f"Not executed: the limit of {cap} tool calls is reached."),
                    0.0,
                    code="TOOL_CALL_LIMIT",
                )
                continue
            self.tool_calls += 1
            self.usage.tool_calls += 1
            try:
                jobs.append(_Job(index, tool, tool.validate(call.arguments), key))
            except InvalidArguments as exc:
                results[index] = self._finished(
                    call, _error(call, str(exc)), 0.0, code="INVALID_ARGUMENTS"
                )
        if jobs:
            await self._execute(calls, jobs, results)
        self.messages.append(ToolResultsMessage(tuple(r for r in results if r is not None)))
        if self.repeats > self.limits.max_repeated_calls:
            return self._stop(
                "stuck",
                f"the model repeated identical tool calls {self.repeats} times",
                max_repeated_calls=self.limits.max_repeated_calls,
            )
        if step is not None:
            return step
        if over_limit:
            return self._stop(
                "max_tool_calls",
                f"{self.limits.max_tool_calls} tool calls",
                max_tool_calls=self.limits.max_tool_calls,
            )
        return None

    def _resolve(self, call: ToolCall) -> Tool | tuple[ToolResult, str]:
        """The tool to run, or an error result with its code."""
        tool = self.agent.tools.get(call.name)
        if tool is None:
            available = ", ".join(self.agent.tools) or "none"
            message = f"Unknown tool {call.name!r}. Available tools: {available}."
            return _error(call, message), "UNKNOWN_TOOL"
        if call.raw_arguments is not None:
            message = (
                f"Arguments for {call.name!r} are not valid JSON: {call.raw_arguments[:200]!r}"
            )
            return _error(call, message), "INVALID_ARGUMENTS"
        return tool

    async def _execute(
        self,
        calls: Sequence[ToolCall],
        jobs: list[_Job],
        results: list[ToolResult | None],
    ) -> None:
        async def one(job: _Job) -> None:
            call, tool = calls[job.index], job.tool
            started = time.perf_counter()
            code: str | None = None
            timeout = tool.timeout or self.limits.tool_timeout
            try:
                async with asyncio.timeout(timeout):
                    value = await tool.invoke(job.args, self.ctx)
                content = _cap(format_output(value), tool.max_output_chars, self.limits)
                result = ToolResult(call.id, call.name, content, value=value)
                self.seen[job.key] = result
            except TimeoutError:
                code = "TOOL_TIMEOUT"
                result = _error(call, f"Tool {call.name!r} timed out after {timeout:g}s.")
            except Exception as exc:
                code = "TOOL_EXCEPTION"
                result = _error(call, f"Tool {call.name!r} failed: {type(exc).__name__}: {exc}")
            results[job.index] = self._finished(
                call, result, (time.perf_counter() - started) * 1000, code=code
            )

        try:
            self._check_interrupt("before_tool")
            # One call needs no task of its own; several run concurrently.
            work = one(jobs[0]) if len(jobs) == 1 else asyncio.gather(*map(one, jobs))
            await self._guard(work, "tool_execution")
        except _Interrupted:
            for job in jobs:
                if results[job.index] is None:
                    call = calls[job.index]
                    results[job.index] = self._finished(
                        call,
                        _error(call, "Not completed: the run was stopped."),
                        0.0,
                        code="CANCELLED",
                    )
            self.messages.append(ToolResultsMessage(tuple(r for r in results if r is not None)))
            raise

    def _started(self, call: ToolCall) -> ToolCallStarted:
        tool = self.agent.tools.get(call.name)
        return ToolCallStarted(
            run_id=self.id,
            call_id=call.id,
            name=call.name,
            input=call.arguments,
            iteration=self.iteration,
            action=tool.action if tool else "analysing",
            message=tool.description_of(call.arguments, self.ctx)
            if tool
            else f"Running {call.name}",
        )

    def _finished(
        self,
        call: ToolCall,
        result: ToolResult,
        duration_ms: float,
        *,
        code: str | None = None,
        repeated: bool = False,
    ) -> ToolResult:
        tool = self.agent.tools.get(call.name)
        self.emit(
            ToolCallFinished(
                run_id=self.id,
                call_id=call.id,
                name=call.name,
                input=call.arguments,
                output=result.content,
                output_summary=summary_of(result.value, result.content),
                ok=not result.is_error,
                duration_ms=duration_ms,
                iteration=self.iteration,
                error_code=code,
                repeated=repeated,
                action=tool.action if tool else "analysing",
                value=result.value,
            )
        )
        return result

    # ── structured output ───────────────────────────────────────────────────
    def _output_call(
        self, call: ToolCall, output: OutputTool[Any]
    ) -> tuple[ToolResult, str | None, _Step]:
        """Handle the output tool or ``submit``: (result for the model, error code, next step)."""
        reflecting = output.reflection is not None
        try:
            if call.name == SUBMIT_TOOL.name:
                if not reflecting or self.pending_output is None:
                    message = f"`submit` was called before `{output.name}`"
                    stop = self._stop("submit_before_output", message)
                    return _error(call, message), "SUBMIT_BEFORE_OUTPUT", stop
                output.check(self.pending_output)
                return (
                    ToolResult(call.id, call.name, "Submitted."),
                    None,
                    _Final(self.pending_output),
                )
            value = output.parse(call.arguments)
            if output.reflection is not None:
                self.pending_output = value
                try:
                    preview = output.reflection(value)
                except Exception as exc:  # the handler's failure is the model's to see
                    failure = f"the reflection handler failed: {type(exc).__name__}: {exc}"
                    return _error(call, failure), "TOOL_EXCEPTION", None
                return ToolResult(call.id, call.name, preview), None, None
            output.check(value)
            return ToolResult(call.id, call.name, "Output accepted."), None, _Final(value)
        except OutputRejected as rejected:
            # While reflecting, a bad draft is just feedback; a rejected final output is a retry.
            draft = reflecting and call.name == output.name
            step = None if draft else _Retry(str(rejected))
            return _error(call, f"Output rejected: {rejected}"), "OUTPUT_REJECTED", step

    # ── endings ─────────────────────────────────────────────────────────────
    async def _synthesize(self, stop: _Stop) -> RunResult:
        self.messages.append(_injected(prompts.SYNTHESIS_PROMPT))
        if self.limits.context_window is not None:
            # The last round's results arrived after the gate: the answer must fit too.
            self._fit_context("synthesis")
        try:
            response = await self._call_model(self._request("synthesis"), "synthesis")
        except _Interrupted as interrupted:
            return self._finish(interrupted.stop)
        if response.is_empty:
            return self._finish(stop)
        self.messages.append(AssistantMessage(response.text))
        return self._finish(_Final(response.text), forced=stop)

    def _finish(self, step: _Final | _Stop, *, forced: _Stop | None = None) -> RunResult:
        self.usage.wall_ms = (time.monotonic() - self.started) * 1000
        if isinstance(step, _Final):
            outcome: Outcome = forced.outcome if forced else "answered"
            self.emit(
                FinalAnswer(
                    run_id=self.id, output=step.output, outcome=outcome, forced=bool(forced)
                )
            )
            return self._result(outcome, step.output, forced)
        self.emit(
            RunFailed(
                run_id=self.id,
                outcome=step.outcome,
                error_code=step.error_code,
                message=step.reason,
                phase=step.phase,
                error_context=step.context,
            )
        )
        return self._result(step.outcome, None, step, forced_flag=False)

    def _result(
        self, outcome: Outcome, output: Any, stop: _Stop | None, *, forced_flag: bool | None = None
    ) -> RunResult:
        return RunResult(
            run_id=self.id,
            outcome=outcome,
            output=output,
            forced=bool(stop) if forced_flag is None else forced_flag,
            error_code=stop.error_code if stop else None,
            reason=stop.reason if stop else "",
            phase=stop.phase if stop else None,
            usage=self.usage,
            messages=tuple(self.messages),
            events=tuple(self.sink.events),
            callback_errors=tuple(self.sink.errors),
            error_context=stop.context if stop and output is None else {},
            error=stop.error if stop else None,
        )

    def emit(self, event: Event) -> None:
        self.sink.emit(event)


def _call_key(call: ToolCall) -> str:
    return call.name + "\x00" + json.dumps(call.arguments, sort_keys=True, default=str)


def _error(call: ToolCall, message: str) -> ToolResult:
    text = message if message.startswith("Error: ") else f"Error: {message}"
    return ToolResult(call.id, call.name, text, is_error=True)


def _cap(content: str, tool_cap: int | None, limits: Limits) -> str:
    cap = min(tool_cap or limits.max_tool_output_chars, limits.max_tool_output_chars)
    if len(content) <= cap:
        return content
    return f"{content[:cap]}\n[truncated: {len(content) - cap} more characters]"


def _injected(prompt: str) -> UserMessage:
    """A prompt of the runtime's own, marked so that nobody takes it for the user's words."""
    return UserMessage(prompt, origin="runtime")


__all__ = ["Agent", "AgentStream"]
