"""How many input tokens a request will cost: fixed ratios, calibrated by what providers report.

The fixed ratios are role-aware: 3.2 characters per token for prose (system,
user and assistant text), 2.8 for JSON (tool call arguments, tool results,
tool schemas), whose punctuation tokenizes densely. Alone they miss badly:
providers add chat templates, tool-use preambles and image tokens that no
character count sees. :class:`TokenEstimator` therefore learns, from the
``input_tokens`` each response reports, a line

    reported ≈ overhead + scale × fixed-ratio estimate

by least squares with a ridge prior at ``overhead = 0, scale = 1``: one
observation sets the overhead, further ones of other sizes tilt the scale.
Older observations fade (``decay``), so the line follows the conversation at
hand rather than every request the model instance ever served.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from docuchat.models import wire_json
from docuchat.models.base import (
    AssistantMessage,
    Message,
    ModelRequest,
    ToolSpec,
    UserMessage,
)

PROSE_CHARS_PER_TOKEN = 3.2
JSON_CHARS_PER_TOKEN = 2.8


def _json_chars(value: Any) -> int:
    return len(wire_json.dumps(value))  # as the adapters put it on the wire


def message_tokens(message: Message) -> float:
    """Fixed-ratio tokens of one message: prose for text, JSON for tool calls and results."""
    if isinstance(message, UserMessage):
        return len(message.content) / PROSE_CHARS_PER_TOKEN
    if isinstance(message, AssistantMessage):
        structured = 0
        for call in message.tool_calls:
            arguments = call.raw_arguments
            structured += len(call.name) + (
                len(arguments) if arguments is not None else _json_chars(call.arguments)
            )
        return len(message.text) / PROSE_CHARS_PER_TOKEN + structured / JSON_CHARS_PER_TOKEN
    return sum(len(r.content) for r in message.results) / JSON_CHARS_PER_TOKEN


def tools_tokens(tools: Iterable[ToolSpec]) -> float:
    """Fixed-ratio tokens of tool definitions (JSON)."""
    return (
        sum(
            _json_chars({"name": t.name, "description": t.description, "parameters": t.parameters})
            for t in tools
        )
        / JSON_CHARS_PER_TOKEN
    )


def fixed_ratio_estimate(request: ModelRequest) -> float:
    """Tokens of ``request`` by the fixed chars-per-token ratios alone (uncalibrated)."""
    tools = tools_tokens(request.tools) if request.tool_choice != "none" else 0.0
    return (
        len(request.system) / PROSE_CHARS_PER_TOKEN
        + sum(message_tokens(m) for m in request.messages)
        + tools
    )


class TokenEstimator:
    """Estimates a request's input tokens and learns from reported usage (one per model instance).

    ``estimate(request)`` is usable before any observation (it is then the
    fixed-ratio estimate); call ``observe(request, usage.input_tokens)`` after
    each response to calibrate. Each new observation multiplies the weight of
    the earlier ones by ``decay``. ``scale_prior`` is how strongly the scale
    is held at 1, in squared tokens: 1e4 weighs like one observation of a
    100-token request. The scale stays within ``[0.25, 4]`` so that odd
    reports (a server that drops history) cannot drive estimates to zero.
    """

    MIN_SCALE = 0.25
    MAX_SCALE = 4.0
    _OVERHEAD_PRIOR = 1e-6

    def __init__(self, *, decay: float = 0.5, scale_prior: float = 1e4) -> None:
        self._decay = decay
        self._scale_prior = scale_prior
        # Weighted sums of the least-squares normal equations over (estimate x, reported y).
        self._weight = self._sx = self._sy = self._sxx = self._sxy = 0.0
        self.observations = 0
        self.overhead = 0.0
        self.scale = 1.0

    def estimate(self, request: ModelRequest) -> int:
        """Calibrated input tokens of ``request`` (rounded up, never negative)."""
        return self.calibrated(fixed_ratio_estimate(request))

    def calibrated(self, fixed: float) -> int:
        """Calibrated tokens for a fixed-ratio estimate (for callers that keep running totals)."""
        return max(0, math.ceil(self.overhead + self.scale * fixed))

    def observe(self, request: ModelRequest, reported_input_tokens: int) -> None:
        """Learn from the input tokens reported for ``request`` (reports of 0 are ignored)."""
        self.observe_fixed(fixed_ratio_estimate(request), reported_input_tokens)

    def observe_fixed(self, fixed: float, reported_input_tokens: int) -> None:
        """``observe`` for a request whose fixed-ratio estimate is already known."""
        if reported_input_tokens <= 0:
            return
        x, y = fixed, float(reported_input_tokens)
        d = self._decay
        self._weight = d * self._weight + 1
        self._sx = d * self._sx + x
        self._sy = d * self._sy + y
        self._sxx = d * self._sxx + x * x
        self._sxy = d * self._sxy + x * y
        self.observations += 1
        self._refit()

    def _refit(self) -> None:
        # Minimise sum (y - b - a x)^2 + p_b b^2 + p_a (a - 1)^2 in closed form (2x2 system).
        n = self._weight + self._OVERHEAD_PRIOR
        sxx = self._sxx + self._scale_prior
        sxy = self._sxy + self._scale_prior
        scale = (n * sxy - self._sx * self._sy) / (n * sxx - self._sx * self._sx)
        self.scale = min(self.MAX_SCALE, max(self.MIN_SCALE, scale))
        self.overhead = (self._sy - self.scale * self._sx) / n


__all__ = [
    "JSON_CHARS_PER_TOKEN",
    "PROSE_CHARS_PER_TOKEN",
    "TokenEstimator",
    "fixed_ratio_estimate",
    "message_tokens",
    "tools_tokens",
]
