"""LangGraph on the benchmark's work: the canonical agent graph.

A model node calling a chat model with the tools bound, a prebuilt ``ToolNode``,
and the prebuilt ``tools_condition`` routing between them over ``MessagesState``.
(``create_react_agent`` builds the same graph but is deprecated in langgraph 1.x
in favour of ``langchain.agents.create_agent``, which lives in another package.)
langchain_core's fake chat models cannot bind tools, so a minimal chat model
plays the script.

Everything is async: under ``ainvoke`` LangGraph runs a sync node or router in
a worker thread, and the prebuilt ``tools_condition`` is sync, so it is wrapped
(a thread hop per iteration would cost LangGraph 10 to 25% here).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.tools import tool as as_tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from loop_work import ANSWER, QUESTION, TOOL_NAME, Framework, Runner, Work, expect_answer

_USAGE = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}


class ScriptedChatModel(BaseChatModel):
    """Replies as ``script(len(messages))`` says: a tool call, or the answer."""

    script: Callable[[int], int | None]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        # What real chat models do: convert once, then pass the schemas with every call.
        schemas = [convert_to_openai_tool(t) for t in tools]
        return self.bind(tools=schemas, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        n = self.script(len(messages))
        if n is None:
            message = AIMessage(content=ANSWER, usage_metadata=_USAGE)
        else:
            call = {"name": TOOL_NAME, "args": {"n": n}, "id": f"call_{n}", "type": "tool_call"}
            message = AIMessage(content="", tool_calls=[call], usage_metadata=_USAGE)
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._generate(messages, stop, **kwargs)


def build(work: Work) -> Runner:
    lookup = as_tool(work.lookup)
    model = ScriptedChatModel(script=work.next_call).bind_tools([lookup])

    async def call_model(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    async def route(state: dict[str, Any]) -> str:
        return tools_condition(state)

    graph = StateGraph(MessagesState)
    graph.add_node("agent", call_model)
    graph.add_node("tools", ToolNode([lookup]))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route)
    graph.add_edge("tools", "agent")
    app = graph.compile()

    async def run_once() -> None:
        state = await app.ainvoke({"messages": [HumanMessage(QUESTION)]})
        expect_answer(state["messages"][-1].content)

    return run_once


FRAMEWORK = Framework("LangGraph", ("langgraph", "langchain-core"), build)
