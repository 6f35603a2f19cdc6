"""``/v1``: docuchat as an OpenAI-compatible model over the key owner's documents.

Any OpenAI client or chat front end can use it: the last message is the
question, earlier user and assistant messages are the conversation so far
(nothing is stored: the client keeps the conversation, as with OpenAI).

The reply's text is the verified answer with its ``[N]`` markers and a list of
sources; the sources are also in the extra ``citations`` field. Streamed, the
research steps arrive as they happen in ``reasoning_content``, then the answer
text (which exists only once its citations are checked), then a last chunk
with ``finish_reason`` and ``citations``, then ``data: [DONE]``.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

from fastapi import APIRouter, HTTPException, Request, status

from docuchat.models.base import AssistantMessage, Message, UserMessage
from docuchat.research import NO_ANSWER, NOT_ADDRESSED, Answer, AnswerReady, Failure
from docuchat.server.deps import CurrentUser, ServicesDep
from docuchat.server.errors import openai_error
from docuchat.server.openai_schemas import (
    MODELS,
    AssistantReply,
    ChatCompletion,
    ChatCompletionChunk,
    ChatCompletionRequest,
    ChatMessage,
    Choice,
    ChunkChoice,
    CompletionUsage,
    Delta,
    ModelCard,
    ModelList,
    OpenAIError,
)
from docuchat.server.routes.ask import research_agent
from docuchat.server.runs import (
    ActiveRun,
    RunCrashed,
    RunEventStream,
    RunItem,
    cancelled_on_disconnect,
)
from docuchat.server.schemas import CitationPublic
from docuchat.server.stream import StepEvent, StepTranslator, sse, stream_response

_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": OpenAIError, "description": "The request is not acceptable"},
    401: {"model": OpenAIError, "description": "Missing, malformed or unknown API key"},
    413: {"model": OpenAIError, "description": "The body is larger than the server's limit"},
}
_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: stream_response(
        "A chat completion; with `stream: true` server-sent events of chat completion chunks, "
        "then `[DONE]`.",
        "ChatCompletionChunk",
    ),
    404: {"model": OpenAIError, "description": "No such model"},
    502: {"model": OpenAIError, "description": "No answer: the model failed or a limit ended it"},
    503: {"model": OpenAIError, "description": "No answer: the server is shutting down"},
    504: {"model": OpenAIError, "description": "No answer: the model did not answer in time"},
}

router = APIRouter(prefix="/v1", tags=["openai"], responses=_ERRORS)

FAILURE_STATUS: dict[Failure, int] = {
    "model_error": status.HTTP_502_BAD_GATEWAY,
    "limit": status.HTTP_502_BAD_GATEWAY,
    "timeout": status.HTTP_504_GATEWAY_TIMEOUT,
    "cancelled": status.HTTP_503_SERVICE_UNAVAILABLE,
}
"""A question without an answer, as an HTTP status (streamed: an error object, then [DONE]):
the model failed or a limit ended it (502), the model did not answer in time (504), the run
was cancelled (503: the server is shutting down)."""
_STARTED = int(time.time())


@router.get("/models")
def list_models(user: CurrentUser) -> ModelList:
    return ModelList(data=[ModelCard(id=name, created=_STARTED) for name in MODELS])


@router.post("/chat/completions", response_model=ChatCompletion, responses=_RESPONSES)
async def chat_completions(
    body: ChatCompletionRequest, request: Request, user: CurrentUser, services: ServicesDep
) -> Any:
    mode = MODELS.get(body.model)
    if mode is None:
        raise HTTPException(
            status.HTTP_404_NOT_FOUND,
            f"the model {body.model!r} does not exist: use {' or '.join(MODELS)}",
        )
    *earlier, last = body.messages
    if last.role != "user" or not last.text.strip():
        raise HTTPException(
            status.HTTP_400_BAD_REQUEST, "the last message must be the user's question"
        )
    agent = research_agent(services, user.id, mode, body.research)
    history = _history(earlier, services.settings.history_turns)
    run = services.runs.start(agent, last.text, history=history)
    if body.stream:
        include_usage = body.stream_options is not None and body.stream_options.include_usage
        return RunEventStream(run, _chunks(run, body.model, include_usage=include_usage))
    async with cancelled_on_disconnect(request.receive, run.cancel):
        answer = await run.answer()
    if answer.failure is not None:
        raise HTTPException(FAILURE_STATUS[answer.failure], answer.failure_message())
    return ChatCompletion(
        id=f"chatcmpl-{run.id}",
        created=int(time.time()),
        model=body.model,
        choices=[Choice(message=AssistantReply(content=reply_text(answer)))],
        usage=_usage(answer),
        citations=_citations(answer),
    )


async def _chunks(run: ActiveRun, model: str, *, include_usage: bool) -> AsyncIterator[str]:
    chunks = _ChunkWriter(f"chatcmpl-{run.id}", model, include_usage=include_usage)
    yield chunks.chunk(Delta(role="assistant", content=""))
    async for text in run.texts(lambda item: "".join(chunks.of(item))):
        yield text


class _ChunkWriter:
    """The chunks of one streamed completion: steps as reasoning, then the answer."""

    def __init__(self, completion_id: str, model: str, *, include_usage: bool) -> None:
        self.completion_id = completion_id
        self.model = model
        self.include_usage = include_usage
        self.created = int(time.time())
        self.steps = StepTranslator()

    def of(self, item: RunItem) -> Iterator[str]:
        if isinstance(item, AnswerReady) and item.answer.failure is not None:
            status_code = FAILURE_STATUS[item.answer.failure]
            error = openai_error(status_code, item.answer.failure_message())
            yield sse(OpenAIError(error=error))
        elif isinstance(item, AnswerReady):
            yield self.chunk(Delta(content=reply_text(item.answer)))
            yield self.chunk(Delta(), stop=True, citations=_citations(item.answer))
            if self.include_usage:
                yield self.chunk(None, usage=_usage(item.answer))
        elif isinstance(item, RunCrashed):
            yield sse(OpenAIError(error=openai_error(500, item.message)))
        elif isinstance(event := self.steps.translate(item), StepEvent):
            yield self.chunk(Delta(reasoning_content=event.message + "\n"))

    def chunk(self, delta: Delta | None, *, stop: bool = False, **fields: Any) -> str:
        """One chunk: with one choice holding ``delta``, or with none (the usage chunk)."""
        choices = (
            []
            if delta is None
            else [ChunkChoice(delta=delta, finish_reason="stop" if stop else None)]
        )
        return sse(
            ChatCompletionChunk(
                id=self.completion_id,
                created=self.created,
                model=self.model,
                choices=choices,
                **fields,
            )
        )


def reply_text(answer: Answer) -> str:
    """The answer with its ``[N]`` markers, then one line per cited source; an answer whose
    citations do not address the question opens by saying so (as the CLI and the page do)."""
    text = answer.answer
    if answer.presentation == "not_an_answer":
        text = f"{NO_ANSWER} {NOT_ADDRESSED}\n\n{text}"
    if not answer.citations:
        return text
    sources = [
        f"[{c.n}] {c.title}, {c.label} ({'verified' if c.verified else 'not verified'})"
        for c in answer.citations
    ]
    return text + "\n\nSources:\n" + "\n".join(sources)


def _history(messages: list[ChatMessage], turns: int) -> list[Message]:
    """The conversation's user and assistant messages: the last ``turns`` turns of it, as
    the model sees of a conversation saved by ``/api/ask``."""
    history: list[Message] = []
    for message in messages:
        if message.role == "user" and message.text:
            history.append(UserMessage(message.text))
        elif message.role == "assistant" and message.text:
            history.append(AssistantMessage(message.text))
    return history[len(history) - 2 * turns :] if turns else []


def _citations(answer: Answer) -> list[CitationPublic]:
    return [CitationPublic.model_validate(c) for c in answer.citation_dicts()]


def _usage(answer: Answer) -> CompletionUsage:
    usage = answer.run.usage
    return CompletionUsage(
        prompt_tokens=usage.input_tokens,
        completion_tokens=usage.output_tokens,
        total_tokens=usage.total_tokens,
    )
