"""``POST /api/ask``: a cited answer, streamed as server-sent events or returned whole.

The question joins a conversation (a new one unless ``conversation_id`` names
one of the user's): the model sees the earlier turns as plain user and
assistant messages, and the new turn is saved before the final event is sent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import suppress
from functools import partial
from typing import Any

from fastapi import APIRouter, HTTPException, Request, status

from docuchat.errors import ConfigError, NotFound
from docuchat.research import Answer, AnswerReady, ResearchAgent
from docuchat.research.agent import Mode
from docuchat.research.conversation import history_messages, title_of, turn_of
from docuchat.server.db_calls import db_call
from docuchat.server.deps import CurrentUser, ServicesDep
from docuchat.server.runs import (
    ActiveRun,
    RunCrashed,
    RunEventStream,
    RunItem,
    cancelled_on_disconnect,
)
from docuchat.server.schemas import AskRequest, AskResult, ResearchRequest, error_responses
from docuchat.server.services import Services
from docuchat.server.stream import (
    ErrorEvent,
    FinalEvent,
    RunEvent,
    StepTranslator,
    sse,
    stream_response,
)
from docuchat.store.accounts import Accounts, Conversation

router = APIRouter(prefix="/api", tags=["ask"], responses=error_responses(401, 404))

STREAMED = stream_response(
    "With `stream: false` the result as JSON; with `stream: true` server-sent events: "
    "`run`, then `step` and `answer_delta` events as they happen, then `final` (or `error`), "
    "then `[DONE]`.",
    "StreamEvent",
)


@router.post("/ask", response_model=AskResult, responses={200: STREAMED, **error_responses(400)})
async def ask(body: AskRequest, request: Request, user: CurrentUser, services: ServicesDep) -> Any:
    agent = research_agent(services, user.id, body.mode, body.research, body.model)
    conversation = await db_call(partial(_conversation, services.accounts, user.id, body))
    history = history_messages(conversation.turns, services.settings.history_turns)

    async def save_turn(answer: Answer) -> None:
        await db_call(partial(_save_turn, services.accounts, user.id, conversation.id, answer))

    run = services.runs.start(
        agent,
        body.question,
        history=history,
        conversation_id=conversation.id,
        on_answer=save_turn,
    )
    if body.stream:
        return RunEventStream(run, _events(run))
    async with cancelled_on_disconnect(request.receive, run.cancel):
        answer = await run.answer()
    return AskResult.of(answer, run.id, conversation.id)


async def _events(run: ActiveRun) -> AsyncIterator[str]:
    yield sse(RunEvent(run_id=run.id, conversation_id=run.conversation_id))
    steps = StepTranslator()
    async for text in run.texts(lambda item: _event(item, run, steps)):
        yield text


def _event(item: RunItem, run: ActiveRun, steps: StepTranslator) -> str:
    if isinstance(item, AnswerReady):
        return sse(FinalEvent.of(item.answer, run.id, run.conversation_id))
    if isinstance(item, RunCrashed):
        return sse(ErrorEvent(message=item.message))
    event = steps.translate(item)
    return sse(event) if event is not None else ""


def research_agent(
    services: Services,
    owner: str,
    mode: Mode,
    research: ResearchRequest | None,
    model_spec: str | None = None,
) -> ResearchAgent:
    """The question's agent; a model the server does not offer is a 404 that says which
    it does."""
    try:
        return services.agent(owner, mode, research, model_spec)
    except ConfigError as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from None


def _conversation(accounts: Accounts, owner: str, body: AskRequest) -> Conversation:
    if body.conversation_id is not None:
        return accounts.get_conversation(owner, body.conversation_id)
    return accounts.create_conversation(owner, title_of(body.question))


def _save_turn(accounts: Accounts, owner: str, conversation_id: str, answer: Answer) -> None:
    with suppress(NotFound):  # the conversation was deleted while the question was answered
        accounts.add_turn(owner, conversation_id, turn_of(answer))
