"""Every way a run stops early, in one table: reason → outcome, error code, action, event.

The loop builds each stop through :func:`stop_rule` only, so a stop's outcome,
its error code, whether it first makes a forced synthesis call, and whether it
is reported as a ``limit_reached`` event cannot drift apart between call sites.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from docuchat.agent.limits import LimitAction, Limits
from docuchat.agent.result import ErrorCode, Outcome

StopReason = Literal[
    "max_iterations",
    "max_tool_calls",
    "token_budget",
    "context_window",
    "timeout",
    "model_timeout",
    "synthesis_timeout",
    "empty_responses",
    "protocol_error",
    "no_output_call",
    "submit_before_output",
    "stuck",
    "max_validation_attempts",
    "model_error",
    "context_overflow",
    "cancelled",
]


@dataclass(frozen=True, slots=True)
class StopRule:
    outcome: Outcome
    code: ErrorCode
    limit: str | None
    """The limit reported by a ``limit_reached`` event; None for stops that are no limit
    (a model error, a cancellation, a protocol violation the run cannot repair)."""
    action: LimitAction | Literal["configured"]
    """``configured``: the limit's ``Limits.on_<limit>`` decides."""

    def resolve(self, limits: Limits) -> LimitAction:
        if self.action == "configured":
            assert self.limit is not None
            return limits.action_for(self.limit)
        return self.action


STOP_RULES: dict[StopReason, StopRule] = {
    "max_iterations": StopRule("max_iterations", "MAX_ITERATIONS", "max_iterations", "configured"),
    "max_tool_calls": StopRule("max_tool_calls", "MAX_TOOL_CALLS", "max_tool_calls", "configured"),
    "token_budget": StopRule("token_budget", "TOKEN_BUDGET", "token_budget", "configured"),
    # The context window left too little room: the token budget's action applies.
    "context_window": StopRule("token_budget", "TOKEN_BUDGET", "token_budget", "configured"),
    "timeout": StopRule("timeout", "TIMEOUT", "timeout", "configured"),
    # One model call took longer than Limits.model_timeout: a synthesis would ask the same
    # silent model again.
    "model_timeout": StopRule("timeout", "TIMEOUT", "model_timeout", "stop"),
    # The forced synthesis itself ran out of time: nothing is left to try.
    "synthesis_timeout": StopRule("timeout", "TIMEOUT", None, "stop"),
    "empty_responses": StopRule(
        "invalid_response", "INVALID_RESPONSE", "max_empty_responses", "synthesize"
    ),
    "protocol_error": StopRule("invalid_response", "INVALID_RESPONSE", "protocol", "synthesize"),
    # Seed 003: with an output tool, a response that calls no tool is an invalid response.
    "no_output_call": StopRule("invalid_response", "INVALID_RESPONSE", None, "stop"),
    "submit_before_output": StopRule("invalid_response", "SUBMIT_BEFORE_OUTPUT", None, "stop"),
    "stuck": StopRule("stuck", "STUCK", "max_repeated_calls", "stop"),
    "max_validation_attempts": StopRule(
        "max_validation_attempts", "VALIDATION_FAILED", "max_validation_attempts", "stop"
    ),
    "model_error": StopRule("model_error", "MODEL_ERROR", None, "stop"),
    # The server refused the request as too long for its window (its message says so).
    "context_overflow": StopRule("context_overflow", "CONTEXT_OVERFLOW", None, "stop"),
    "cancelled": StopRule("cancelled", "EXECUTION_CANCELLED", None, "stop"),
}


def stop_rule(reason: StopReason) -> StopRule:
    return STOP_RULES[reason]


__all__ = ["STOP_RULES", "StopReason", "StopRule", "stop_rule"]
