"""pydantic-ai on the benchmark's work: an async FunctionModel and a plain tool, defaults."""

from __future__ import annotations

from pydantic_ai import Agent, Tool
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from loop_work import ANSWER, QUESTION, TOOL_NAME, Framework, Runner, Work, expect_answer


def build(work: Work) -> Runner:
    # Async, so FunctionModel calls it inline instead of in a worker thread.
    async def respond(messages: list[ModelMessage], _info: AgentInfo) -> ModelResponse:
        n = work.next_call(len(messages))
        part = (
            TextPart(ANSWER)
            if n is None
            else ToolCallPart(TOOL_NAME, {"n": n}, tool_call_id=f"call_{n}")
        )
        # Usage given, as docuchat's scripted model gives it: FunctionModel would otherwise
        # estimate it from the whole history on every call.
        return ModelResponse(parts=[part], usage=RequestUsage(input_tokens=10, output_tokens=5))

    agent = Agent(FunctionModel(respond), tools=[Tool(work.lookup, takes_ctx=False)])

    async def run_once() -> None:
        result = await agent.run(QUESTION)
        expect_answer(result.output)

    return run_once


FRAMEWORK = Framework("pydantic-ai", ("pydantic-ai-slim",), build)
