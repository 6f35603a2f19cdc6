"""Reading the request: the question, earlier questions, this turn's tool calls and results."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from docuchat.agent.prompts import EMPTY_RESPONSE_NUDGE, SYNTHESIS_PROMPT
from docuchat.models.base import AssistantMessage, Message, ToolResultsMessage, UserMessage
from docuchat.research.prompts import PIPELINE_PROMPT

SEARCH = "search_docs"
OPEN = "open_citation"

_RUNTIME_PROMPTS = frozenset({SYNTHESIS_PROMPT, EMPTY_RESPONSE_NUDGE, PIPELINE_PROMPT})
_RUNTIME_PREFIXES = ("Your output failed validation", "Respond by calling the")


@dataclass(frozen=True, slots=True)
class Hit:
    doc_id: str
    chunk_id: str
    snippet: str


@dataclass(frozen=True, slots=True)
class Passage:
    n: int
    chunk_id: str
    text: str


@dataclass(slots=True)
class Turn:
    """What the current turn of the conversation holds so far."""

    question: str = ""
    earlier_questions: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    searches: list[list[Hit]] = field(default_factory=list)
    passages: dict[int, Passage] = field(default_factory=dict)
    opened: list[str] = field(default_factory=list)
    """Chunk ids in the order they were asked for: the order of preference."""
    tool_calls: int = 0
    steps: int = 0
    calls_in_transcript: int = 0

    def reading_order(self) -> list[Passage]:
        """The passages in the order they were asked for (their numbers follow the order in
        which the tools finished, which concurrent calls do not fix)."""
        asked = {chunk_id: i for i, chunk_id in reversed(list(enumerate(self.opened)))}
        return sorted(
            self.passages.values(), key=lambda p: (asked.get(p.chunk_id, len(asked)), p.n)
        )


def read_turn(messages: Sequence[Message]) -> Turn:
    """The current question, earlier questions, and this turn's tool calls and results."""
    turn = Turn()
    turn.calls_in_transcript = sum(
        len(m.tool_calls) for m in messages if isinstance(m, AssistantMessage)
    )
    asked = [i for i, m in enumerate(messages) if _is_question(m)]
    if not asked:
        return turn
    questions = [m.content for m in messages if isinstance(m, UserMessage) and _is_question(m)]
    turn.question, turn.earlier_questions = questions[-1], questions[:-1]
    for message in messages[asked[-1] + 1 :]:
        if isinstance(message, AssistantMessage):
            turn.steps += 1
            for call in message.tool_calls:
                turn.tool_calls += 1
                if call.name == SEARCH:
                    turn.queries.append(str(call.arguments.get("query", "")))
                elif call.name == OPEN:
                    turn.opened.append(str(call.arguments.get("chunkId", "")))
        elif isinstance(message, ToolResultsMessage):
            for result in message.results:
                data = None if result.is_error else _decode(result.content)
                if data is not None:
                    _take_result(turn, result.name, data)
    return turn


def _is_question(message: Message) -> bool:
    return (
        isinstance(message, UserMessage)
        and message.content not in _RUNTIME_PROMPTS
        and not message.content.startswith(_RUNTIME_PREFIXES)
    )


def _decode(content: str) -> dict[str, Any] | None:
    """The JSON object a tool returned (a note after it, as on a repeated call, is ignored)."""
    try:
        value, _ = json.JSONDecoder().raw_decode(content.strip())
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _take_result(turn: Turn, tool: str, data: dict[str, Any]) -> None:
    if tool == SEARCH and isinstance(data.get("hits"), list):
        turn.searches.append(
            [
                Hit(str(h["docId"]), str(h["chunkId"]), str(h.get("snippet", "")))
                for h in data["hits"]
                if isinstance(h, dict) and "docId" in h and "chunkId" in h
            ]
        )
    elif isinstance(data.get("citation"), int) and isinstance(data.get("text"), str):
        n = data["citation"]
        turn.passages[n] = Passage(n, str(data.get("chunkId", "")), data["text"])
