"""What a run returns: a typed outcome with the transcript, usage and events."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from docuchat.agent.events import Event
from docuchat.errors import ModelError
from docuchat.models.base import Message, TokenUsage

Outcome = Literal[
    "answered",
    "max_iterations",
    "max_tool_calls",
    "max_validation_attempts",
    "timeout",
    "token_budget",
    "cancelled",
    "model_error",
    "stuck",
    "invalid_response",
    "context_overflow",
]

ErrorCode = Literal[
    "MAX_ITERATIONS",
    "MAX_TOOL_CALLS",
    "VALIDATION_FAILED",
    "TIMEOUT",
    "TOKEN_BUDGET",
    "EXECUTION_CANCELLED",
    "MODEL_ERROR",
    "STUCK",
    "INVALID_RESPONSE",
    "SUBMIT_BEFORE_OUTPUT",
    "CONTEXT_OVERFLOW",
]


@dataclass(frozen=True, slots=True)
class Price:
    """US dollars per million tokens."""

    input_per_million: float
    output_per_million: float


@dataclass(frozen=True, slots=True)
class ModelCall:
    attempt: int
    iteration: int
    purpose: Literal["step", "synthesis"]
    input_tokens: int
    output_tokens: int
    latency_ms: float
    reported: bool
    """False when the provider reported no usage (llama-cpp-python never does on streamed
    calls): the tokens are then the runtime's estimate, so that budgets still count them."""


@dataclass(slots=True)
class Usage:
    model_calls: list[ModelCall] = field(default_factory=list)
    tool_calls: int = 0
    wall_ms: float = 0.0
    price: Price | None = None

    @property
    def input_tokens(self) -> int:
        return sum(c.input_tokens for c in self.model_calls)

    @property
    def output_tokens(self) -> int:
        return sum(c.output_tokens for c in self.model_calls)

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def model_latency_ms(self) -> float:
        return sum(c.latency_ms for c in self.model_calls)

    def per_attempt(self) -> dict[int, TokenUsage]:
        totals: dict[int, TokenUsage] = defaultdict(TokenUsage)
        for c in self.model_calls:
            totals[c.attempt] = totals[c.attempt] + TokenUsage(c.input_tokens, c.output_tokens)
        return dict(totals)

    @property
    def cost(self) -> float | None:
        if self.price is None:
            return None
        return (
            self.input_tokens * self.price.input_per_million
            + self.output_tokens * self.price.output_per_million
        ) / 1_000_000

    @property
    def estimated_calls(self) -> int:
        """Model calls whose provider reported no usage (their tokens are estimates)."""
        return sum(1 for c in self.model_calls if not c.reported)

    def as_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
            "model_calls": len(self.model_calls),
            "estimated_calls": self.estimated_calls,
            "tool_calls": self.tool_calls,
            "model_latency_ms": round(self.model_latency_ms, 1),
            "wall_ms": round(self.wall_ms, 1),
            "cost": self.cost,
            "per_attempt": {
                a: {"input_tokens": u.input_tokens, "output_tokens": u.output_tokens}
                for a, u in self.per_attempt().items()
            },
            "calls": [
                {
                    "attempt": c.attempt,
                    "iteration": c.iteration,
                    "purpose": c.purpose,
                    "input_tokens": c.input_tokens,
                    "output_tokens": c.output_tokens,
                    "latency_ms": round(c.latency_ms, 1),
                    "reported": c.reported,
                }
                for c in self.model_calls
            ],
        }


@dataclass(frozen=True, slots=True)
class CallbackError:
    callback: str
    event_type: str
    error: str


@dataclass(frozen=True, slots=True)
class RunResult:
    run_id: str
    outcome: Outcome
    output: Any
    """The answer: text, or the validated output model. Forced answers are always text."""
    forced: bool
    """True when a limit forced a final synthesis call with tools disabled."""
    error_code: ErrorCode | None
    reason: str
    phase: str | None
    usage: Usage
    messages: tuple[Message, ...]
    events: tuple[Event, ...]
    callback_errors: tuple[CallbackError, ...] = ()
    error_context: Mapping[str, Any] = field(default_factory=dict)
    """Where a failed run stopped: ``attempt``, ``iteration`` and, for a limit, its maximum
    (seed 003's ``{attempt, iterationCount, maxIterations}`` for MAX_ITERATIONS)."""
    error: ModelError | None = None
    """The provider error that ended a ``model_error`` run, typed (a
    ``ModelConnectionError`` names the URL that could not be reached)."""

    @property
    def ok(self) -> bool:
        """An ordinary success: answered by the model itself, not forced."""
        return self.outcome == "answered" and not self.forced
