"""Research runs that end badly: the fallback when no answer text is left, the question's
time limit over the agent, its synthesis and the fallback, and why an answer is missing."""

from __future__ import annotations

import time
from typing import Any

import pytest

from docuchat.errors import ModelHTTPError
from docuchat.models import ScriptedModel
from docuchat.models.base import ModelRequest, ModelResponse
from docuchat.models.scripted import call, reply
from docuchat.research import ResearchAgent, research_limits
from docuchat.search.hybrid import HybridSearcher

CITED = "The annual rent is 14,400 pounds, payable monthly in advance [1]."


def invalid_arguments_then(answer: str) -> object:
    """Invalid arguments whenever tools are offered; the forced synthesis (tools withdrawn)
    calls a tool anyway, so it writes nothing; any later call answers."""
    calls_without_tools = 0

    def policy(request: ModelRequest) -> ModelResponse:
        nonlocal calls_without_tools
        if request.tools:
            return call("search_docs", quer="rent")
        calls_without_tools += 1
        return call("search_docs", query="rent") if calls_without_tools == 1 else reply(answer)

    return policy


def test_a_limit_that_leaves_an_empty_answer_falls_back_to_the_pipeline(
    searcher: HybridSearcher,
) -> None:
    agent = ResearchAgent(searcher, ScriptedModel(invalid_arguments_then(CITED)), owner="alice")
    answer = agent.ask_sync("What is the annual rent of the east cottage?")
    assert answer.failed_run is not None
    assert (answer.failed_run.outcome, answer.failed_run.forced) == ("max_iterations", True)
    assert (answer.mode, answer.fallback, answer.answer) == ("pipeline", True, CITED)
    assert answer.failure is None and answer.citations[0].verified


@pytest.mark.parametrize(
    ("steps", "failure"),
    [
        (lambda _r: call("search_docs", quer="rent"), "limit"),
        ([ModelHTTPError(400, "no such model")] * 2, "model_error"),
    ],
)
def test_a_question_without_an_answer_says_why(
    searcher: HybridSearcher, steps: Any, failure: str
) -> None:
    # Nothing in the documents matches, so no passage is read to quote instead.
    agent = ResearchAgent(searcher, ScriptedModel(steps), owner="alice")
    answer = agent.ask_sync("Xylophones or zeppelins?")
    assert answer.answer == "" and answer.fallback and not answer.extractive
    assert answer.failure == failure
    assert answer.failure_message().startswith(f"no answer ({answer.outcome}: ")
    # Where the pipeline did read passages, they are quoted rather than nothing.
    quoted = ResearchAgent(searcher, ScriptedModel(steps), owner="alice")
    answer = quoted.ask_sync("What is the annual rent of the east cottage?")
    assert answer.extractive and answer.failure is None and answer.citations[0].verified


@pytest.mark.parametrize(
    ("seconds", "model_timeout", "most", "reason"),
    [
        # Slower than the question's time: the research, its synthesis, nothing left.
        (1.0, 30.0, 1.6, "forced synthesis timed out"),
        # A silent model: given up on after one call, and not asked again by the fallback.
        (5.0, 0.3, 1.0, "the model did not answer within 0.3s"),
    ],
)
def test_a_slow_model_is_given_up_on_in_time(
    searcher: HybridSearcher, seconds: float, model_timeout: float, most: float, reason: str
) -> None:
    model = ScriptedModel(lambda _r: reply("late"), delay=10)
    limits = research_limits(seconds, model_timeout)
    agent = ResearchAgent(searcher, model, owner="alice", limits=limits)
    started = time.monotonic()
    answer = agent.ask_sync("What is the annual rent of the east cottage?")
    assert time.monotonic() - started < most
    assert (answer.outcome, answer.failure, answer.fallback) == ("timeout", "timeout", False)
    assert answer.run.reason == reason
