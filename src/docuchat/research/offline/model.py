"""The offline model itself: one step of the research protocol per call, from the request."""

from __future__ import annotations

import json
import math
import re
from collections.abc import AsyncIterator
from copy import copy

from docuchat.embeddings import Embedder
from docuchat.models.base import (
    ModelRequest,
    ModelResponse,
    StreamItem,
    TextChunk,
    TokenUsage,
    ToolCall,
)
from docuchat.models.tokens import JSON_CHARS_PER_TOKEN, PROSE_CHARS_PER_TOKEN, TokenEstimator
from docuchat.research.offline.answer import compose_answer
from docuchat.research.offline.planning import Budget, Call, plan
from docuchat.research.offline.transcript import OPEN, SEARCH, Turn, read_turn
from docuchat.research.questions import analyse, tool_budget
from docuchat.research.relevance import THRESHOLDS, Thresholds
from docuchat.research.similarity import SentenceSimilarity


class OfflineModel:
    """Plans searches, opens passages and answers by quoting them: no network, no weights."""

    name = "offline"

    def __init__(
        self,
        *,
        max_tool_calls: int = 5,
        max_iterations: int = 5,
        embedder: Embedder | None = None,
        thresholds: Thresholds = THRESHOLDS,
    ) -> None:
        """``embedder``: also rank sentences by their dense similarity to the question, and
        take a sentence close to it in meaning to address it with fewer of its words.
        ``thresholds``: how much of the question a sentence must carry (higher declines
        more often)."""
        self.budget = Budget(max_tool_calls, max_iterations)
        self.thresholds = thresholds
        self.similarity = SentenceSimilarity(embedder) if embedder else None
        self._estimator = TokenEstimator()

    def with_embedder(self, embedder: Embedder) -> OfflineModel:
        """The same model, also ranking sentences by ``embedder``'s similarity."""
        return OfflineModel(
            max_tool_calls=self.budget.tool_calls,
            max_iterations=self.budget.steps,
            embedder=embedder,
            thresholds=self.thresholds,
        )

    def with_thresholds(self, thresholds: Thresholds) -> OfflineModel:
        """The same model, judging sentences by ``thresholds``."""
        judging = copy(self)
        judging.thresholds = thresholds
        return judging

    async def complete(self, request: ModelRequest) -> ModelResponse:
        response = self._respond(request)
        usage = TokenUsage(self._estimator.estimate(request), _output_tokens(response))
        return ModelResponse(
            text=response.text,
            tool_calls=response.tool_calls,
            usage=usage,
            finish_reason=response.finish_reason,
            model=self.name,
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        response = await self.complete(request)
        for piece in re.findall(r"\S+\s*|\s+", response.text):
            yield TextChunk(piece)
        yield response

    def _respond(self, request: ModelRequest) -> ModelResponse:
        turn = read_turn(request.messages)
        asked = analyse(turn.question, turn.earlier_questions)
        offered = {t.name for t in request.tools} if request.tool_choice != "none" else set()
        if {SEARCH, OPEN} <= offered:
            budget = Budget(tool_budget(asked, self.budget.tool_calls), self.budget.steps)
            planned = plan(turn, asked, budget, by_meaning=self.similarity is not None)
            if planned:
                return _tool_calls(planned, turn)
        text = compose_answer(asked, turn.reading_order(), self.similarity, self.thresholds)
        return ModelResponse(text=text, finish_reason="stop")


def _tool_calls(planned: list[Call], turn: Turn) -> ModelResponse:
    first = turn.calls_in_transcript + 1
    calls = tuple(
        ToolCall(f"offline_{first + i}", name, arguments)
        for i, (name, arguments) in enumerate(planned)
    )
    name, arguments = planned[0]
    if name == SEARCH and len(calls) > 1:
        queries = "; ".join(str(c.arguments["query"]) for c in calls)
        text = f"Searching the documents for each subject: {queries}"
    elif name == SEARCH and turn.queries:
        text = f"That search found little; searching again with other words: {arguments['query']}"
    elif name == SEARCH:
        text = f"Searching the documents for: {arguments['query']}"
    else:
        text = f"Opening the {len(calls)} most promising passage(s), then answering from them."
    return ModelResponse(text=text, tool_calls=calls, finish_reason="tool_calls")


def _output_tokens(response: ModelResponse) -> int:
    arguments = sum(len(c.name) + len(json.dumps(dict(c.arguments))) for c in response.tool_calls)
    return math.ceil(len(response.text) / PROSE_CHARS_PER_TOKEN + arguments / JSON_CHARS_PER_TOKEN)
