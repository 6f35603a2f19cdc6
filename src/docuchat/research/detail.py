"""Research controls (seed 002): detail levels, per-question limits, which models may run
the agent.

A detail level sets how much the agent may do (tool calls, model calls), how much it
reads (passages per search, characters per passage or document, documents per
``read_multiple_documents``) and how many opened passages stay in full in the prompt
(older ones become one-line stubs). A question's own limits (flags, the API, the
config file's ``[research]``) override the level's; a server clamps both to its maxima.

Time: a question ends within its ``timeout`` (default 60 s): the research until three
quarters of it (less when a model call may take less), then a forced synthesis in the
rest, and the pipeline fallback in whatever is left. One model call may take
``model_timeout`` seconds (default 30; ``Limits.model_timeout``).

``models_allowed`` (weakest first) ranks the models; one that comes before
``min_model_for_agent`` answers with the fixed pipeline, and the answer says why.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypeVar

from docuchat.agent import Limits
from docuchat.config import ANSWER_TIMEOUT, MODEL_TIMEOUT, DetailLevel, ResearchConfig, ToolSet
from docuchat.errors import ConfigError


@dataclass(frozen=True, slots=True)
class Detail:
    """What one detail level sets."""

    max_tool_calls: int
    max_iterations: int
    search_results: int
    """Passages one search returns."""
    passage_chars: int
    """Characters of a passage ``open_citation`` shows."""
    read_chars: int
    """Characters ``read_document`` shows (shared by the documents of one
    ``read_multiple_documents`` call, each at least ``passage_chars``)."""
    keep_open: int
    """Opened passages that stay in full in the prompt."""
    documents_per_read: int
    """Documents one ``read_multiple_documents`` call reads."""


DETAILS: dict[DetailLevel, Detail] = {
    "brief": Detail(3, 4, 5, 800, 1500, 2, 2),
    "standard": Detail(5, 5, 8, 1500, 3000, 3, 3),
    "detailed": Detail(10, 10, 12, 2500, 6000, 6, 5),
}


def research_limits(
    seconds: float = ANSWER_TIMEOUT, model_timeout: float = MODEL_TIMEOUT
) -> Limits:
    """The research agent's limits for a question of ``seconds``."""
    limits = Limits(
        max_tool_calls=5,
        max_iterations=5,
        on_max_tool_calls="synthesize",
        on_max_iterations="synthesize",
        on_timeout="synthesize",
        model_timeout=model_timeout,
    )
    return within(limits, seconds)


def within(limits: Limits, seconds: float) -> Limits:
    """``limits`` for a question that ends within ``seconds``: research, then a forced
    synthesis in the last quarter (or in one model call's time, when that is shorter)."""
    synthesis = min(seconds / 4, limits.model_timeout or seconds)
    return replace(limits, timeout=seconds - synthesis, synthesis_grace=synthesis)


def question_seconds(limits: Limits) -> float | None:
    """A question's whole time under ``limits``: the research, then the synthesis's grace."""
    if limits.timeout is None:
        return None
    return limits.timeout + (limits.synthesis_grace if limits.on_timeout == "synthesize" else 0)


@dataclass(frozen=True, slots=True)
class QuestionLimits:
    """Limits one question asks for; None: the detail level's (or the run's default)."""

    max_tool_calls: int | None = None
    max_iterations: int | None = None
    timeout: float | None = None


NO_LIMITS = QuestionLimits()


@dataclass(frozen=True, slots=True)
class ResearchControls:
    """How one question is researched: what a flag, a request or ``[research]`` chose."""

    detail: DetailLevel = "standard"
    tools: ToolSet = "basic"
    limits: QuestionLimits = NO_LIMITS

    @classmethod
    def of(cls, config: ResearchConfig) -> ResearchControls:
        return cls(
            config.detail,
            config.tools,
            QuestionLimits(config.max_tool_calls, config.max_iterations, config.timeout),
        )

    def overridden(
        self,
        *,
        detail: DetailLevel | None = None,
        tools: ToolSet | None = None,
        limits: QuestionLimits = NO_LIMITS,
    ) -> ResearchControls:
        """These controls with what a flag or a request set (None keeps the current one)."""
        mine = self.limits
        return ResearchControls(
            detail or self.detail,
            tools or self.tools,
            QuestionLimits(
                limits.max_tool_calls or mine.max_tool_calls,
                limits.max_iterations or mine.max_iterations,
                limits.timeout or mine.timeout,
            ),
        )

    def run_limits(self, base: Limits, maxima: QuestionLimits = NO_LIMITS) -> Limits:
        """``base`` with the detail level's tool calls and iterations, then this question's
        own limits; each at most its maximum (a server's), where one is set. The question's
        time is the whole question's (``within``)."""
        level, own = DETAILS[self.detail], self.limits
        limits = replace(
            base,
            max_tool_calls=_capped(
                own.max_tool_calls or level.max_tool_calls, maxima.max_tool_calls
            ),
            max_iterations=_capped(
                own.max_iterations or level.max_iterations, maxima.max_iterations
            ),
        )
        seconds = _at_most(own.timeout or question_seconds(base), maxima.timeout)
        return limits if seconds is None else within(limits, seconds)


N = TypeVar("N", int, float)


def _capped(value: N, most: N | None) -> N:
    return value if most is None else min(value, most)


def _at_most(value: N | None, most: N | None) -> N | None:
    """``value`` capped at ``most``; no value (no limit) is the maximum itself."""
    return most if value is None else _capped(value, most)


def check_model_allowed(spec: str, config: ResearchConfig) -> None:
    """``ConfigError`` unless ``models_allowed`` (when set) lists ``spec``."""
    allowed = config.models_allowed
    if allowed is not None and spec not in allowed:
        raise ConfigError(
            f"model {spec!r} is not in [research] models_allowed: use one of {', '.join(allowed)}"
        )


def below_agent_bar(spec: str, config: ResearchConfig) -> str:
    """Why ``spec`` may not run the agent ("" when it may): it ranks below
    ``min_model_for_agent`` in ``models_allowed`` (weakest first)."""
    bar, ranked = config.min_model_for_agent, config.models_allowed
    if bar is None or ranked is None or spec not in ranked:
        return ""
    if ranked.index(spec) >= ranked.index(bar):
        return ""
    return f"{spec} is below min_model_for_agent ({bar}): the fixed pipeline answered"
