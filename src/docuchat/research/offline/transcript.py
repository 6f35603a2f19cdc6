"""Reading the request: the question, earlier questions, this turn's tool calls and results.

The questions are the user's own messages (``origin == "user"``; the prompts the runtime
and the research agent inject are marked ``runtime``); the results are the tools' typed
values, which the runtime keeps beside the text it sends (an evicted result has none).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from docuchat.models.base import AssistantMessage, Message, ToolResultsMessage, UserMessage
from docuchat.research.questions import earlier_questions
from docuchat.research.sentences import Passage
from docuchat.research.tools import OpenedPassage, SearchResults, open_citation, search_docs

SEARCH = search_docs.name
OPEN = open_citation.name


@dataclass(frozen=True, slots=True)
class Hit:
    doc_id: str
    chunk_id: str
    snippet: str
    title: str = ""
    file: str = ""


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
    questions = earlier_questions(messages)
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
                _take_result(turn, result.value)
    return turn


def _is_question(message: Message) -> bool:
    return isinstance(message, UserMessage) and message.origin == "user"


def _take_result(turn: Turn, value: object) -> None:
    if isinstance(value, SearchResults):
        turn.searches.append(
            [Hit(h.doc_id, h.chunk_id, h.snippet, h.title, h.file) for h in value.hits]
        )
    elif isinstance(value, OpenedPassage):
        turn.passages[value.citation] = Passage(
            value.citation, value.chunk_id, value.text, value.title, value.file
        )
