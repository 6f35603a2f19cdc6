"""docuchat on the benchmark's work: the shipped ScriptedModel and ``@tool``, default Limits."""

from __future__ import annotations

from docuchat.agent import Agent, tool
from docuchat.models.base import ModelRequest, ModelResponse
from docuchat.models.scripted import ScriptedModel, call, reply
from loop_work import ANSWER, QUESTION, TOOL_NAME, Framework, Runner, Work, expect_answer


def build(work: Work) -> Runner:
    def respond(request: ModelRequest) -> ModelResponse:
        n = work.next_call(len(request.messages))
        return reply(ANSWER) if n is None else call(TOOL_NAME, n=n)

    # ScriptedModel attaches its default usage (10 in, 5 out) to every response.
    agent: Agent[str] = Agent(ScriptedModel(respond), tools=[tool(work.lookup)])

    async def run_once() -> None:
        result = await agent.run(QUESTION)
        expect_answer(result.output)

    return run_once


FRAMEWORK = Framework("docuchat", ("docuchat",), build)
