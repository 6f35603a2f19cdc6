"""Every bound of a run in one immutable object that travels with it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

SMALL_WINDOW = 16_384
"""Windows up to this size get an answer cap from ``Limits.with_context_window``."""

LimitAction = Literal["stop", "synthesize"]
"""What reaching a limit does: end with the typed outcome, or make one final
call with tools disabled whose answer is marked ``forced``."""


@dataclass(frozen=True, slots=True)
class Limits:
    max_tool_calls: int | None = None
    """Tool executions per run. A call proposed past the cap is not executed."""
    max_iterations: int = 15
    """Model calls per attempt (seed 003's ``maxIterationsPerAttempt``)."""
    max_validation_attempts: int = 3
    """Attempts when an output tool's validation fails."""
    timeout: float | None = None
    """Wall-clock seconds for the whole run."""
    model_timeout: float | None = None
    """Seconds one model call may take, its retries included: a model that does not answer
    in time ends the run (outcome ``timeout``), without a synthesis call to the same model."""
    tool_timeout: float = 30.0
    """Seconds per tool execution, unless the tool sets its own."""
    token_budget: int | None = None
    """Input plus output tokens the run may spend, as the provider reports them."""
    context_window: int | None = None
    """The model's context size in tokens; older tool results are evicted to fit."""
    min_round_budget: int = 1500
    """Below this many tokens left (budget or window), stop calling tools and synthesise."""
    max_output_tokens: int | None = None
    """Cap on each model answer, sent with every request. Without one, a local server may
    write until its window is full."""
    max_tool_output_chars: int = 20_000
    """Cap on one tool result as the model sees it (tools may set a smaller one)."""
    max_repeated_calls: int = 2
    """Identical repeated calls answered from memory before the run ends as ``stuck``."""
    max_empty_responses: int = 2
    """Consecutive empty model responses before an anti-confabulation synthesis."""
    synthesis_grace: float = 30.0
    """Extra seconds a forced synthesis may take after ``timeout`` has passed."""

    on_max_tool_calls: LimitAction = "stop"
    on_max_iterations: LimitAction = "stop"
    on_token_budget: LimitAction = "synthesize"
    on_timeout: LimitAction = "stop"

    def __post_init__(self) -> None:
        for name in ("max_iterations", "max_validation_attempts", "max_repeated_calls"):
            if getattr(self, name) < 1:
                raise ValueError(f"Limits.{name} must be at least 1")
        if self.max_tool_calls is not None and self.max_tool_calls < 0:
            raise ValueError("Limits.max_tool_calls must not be negative")
        for name in ("timeout", "model_timeout"):
            seconds = getattr(self, name)
            if seconds is not None and not seconds > 0:
                raise ValueError(f"Limits.{name} must be a positive number of seconds")

    def action_for(self, limit: str) -> LimitAction:
        action: LimitAction = getattr(self, f"on_{limit}", "stop")
        return action

    def with_context_window(self, window: int) -> Limits:
        """These limits for a model whose window is ``window`` tokens.

        A small window (a local model's 2,048 or 4,096 tokens) keeps a quarter free for
        each round instead of seed 001's 1,500 tokens, which would leave no room to work,
        and caps each answer at that quarter, which the gate keeps free for it.
        """
        quarter = window // 4
        caps = [self.max_output_tokens, quarter if window <= SMALL_WINDOW else None]
        return dataclasses.replace(
            self,
            context_window=window,
            min_round_budget=min(self.min_round_budget, quarter),
            max_output_tokens=min((cap for cap in caps if cap), default=None),
        )

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)
