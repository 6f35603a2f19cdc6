"""The research agent a question asks for, built the same way by the CLI and the server:
its controls (detail level, tools, limits within a server's maxima), and its model checked
against ``models_allowed`` and ``min_model_for_agent``."""

from __future__ import annotations

from docuchat.agent import Tool
from docuchat.config import MODEL_TIMEOUT, ResearchConfig
from docuchat.models import Model
from docuchat.research.agent import Mode, ResearchAgent
from docuchat.research.detail import (
    DETAILS,
    NO_LIMITS,
    QuestionLimits,
    ResearchControls,
    below_agent_bar,
    check_model_allowed,
    research_limits,
)
from docuchat.search.hybrid import HybridSearcher


def configured_agent(
    searcher: HybridSearcher,
    model: Model,
    owner: str,
    *,
    model_spec: str,
    mode: Mode,
    controls: ResearchControls,
    config: ResearchConfig,
    maxima: QuestionLimits = NO_LIMITS,
    model_timeout: float = MODEL_TIMEOUT,
    extra_tools: tuple[Tool, ...] = (),
    context_window: int | None = None,
    model_choice: str = "",
) -> ResearchAgent:
    """The agent for one question. ``ConfigError`` when ``model_spec`` is not allowed; a
    model below the agent bar answers with the pipeline, and the answer says why.
    ``extra_tools`` (MCP servers') join the rich set, which they bring with them.
    ``context_window``: the model's window when configured (else asked of the model);
    ``model_choice``: why this model (what ``auto`` found)."""
    check_model_allowed(model_spec, config)
    below = below_agent_bar(model_spec, config) if mode == "agent" else ""
    return ResearchAgent(
        searcher,
        model,
        owner=owner,
        mode="pipeline" if below else mode,
        mode_reason=below,
        limits=controls.run_limits(research_limits(model_timeout=model_timeout), maxima),
        rich_tools=controls.tools == "rich" or bool(extra_tools),
        detail=DETAILS[controls.detail],
        extra_tools=extra_tools,
        context_window=context_window,
        model_choice=model_choice,
    )
