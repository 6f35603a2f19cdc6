"""The subset of OpenAI's chat completions API that docuchat speaks, as pydantic models.

Requests may carry any other OpenAI field (temperature, tools, ...): they are
accepted and ignored. Responses add ``citations`` (the verified sources), and
streamed chunks may carry ``reasoning_content``: the research steps as they
happen, in the field that chat front ends show as the model's thinking.
"""

from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from docuchat.research.agent import Mode
from docuchat.server.schemas import QUESTION_MAX_CHARS, CitationPublic, ResearchRequest

MODELS: dict[str, Mode] = {"docuchat": "agent", "docuchat-pipeline": "pipeline"}

# The limits of /api/ask, where they apply: the question is the last message. Earlier
# messages are the conversation a client keeps; the model sees its last turns, as with
# /api/ask's saved conversations.
MESSAGES_MAX = 100
MESSAGE_MAX_CHARS = 32_000
CONVERSATION_MAX_CHARS = 200_000


class ContentPart(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)

    type: str
    text: str | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[ContentPart] | None = None

    @property
    def text(self) -> str:
        if isinstance(self.content, list):
            return "".join(p.text or "" for p in self.content if p.type == "text")
        return self.content or ""

    @model_validator(mode="after")
    def _bounded(self) -> Self:
        if len(self.text) > MESSAGE_MAX_CHARS:
            raise ValueError(
                f"a message of {len(self.text):,} characters, more than {MESSAGE_MAX_CHARS:,}"
            )
        return self


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)

    include_usage: bool = False


class ChatCompletionRequest(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)

    model: str = Field(description="docuchat (the agent) or docuchat-pipeline")
    messages: list[ChatMessage] = Field(
        min_length=1,
        max_length=MESSAGES_MAX,
        description="The last message is the question (from the user, at most "
        f"{QUESTION_MAX_CHARS:,} characters); earlier user and assistant messages are the "
        f"conversation so far (at most {MESSAGE_MAX_CHARS:,} characters each, "
        f"{CONVERSATION_MAX_CHARS:,} in all).",
    )
    stream: bool = False
    stream_options: StreamOptions | None = None
    research: ResearchRequest | None = Field(
        default=None,
        description="docuchat's own: how to research the question (detail, tools, limits); "
        "OpenAI clients send it in extra_body",
    )

    @model_validator(mode="after")
    def _bounded(self) -> Self:
        question = len(self.messages[-1].text)
        if question > QUESTION_MAX_CHARS:
            raise ValueError(
                f"the question (the last message) has {question:,} characters, "
                f"more than {QUESTION_MAX_CHARS:,}"
            )
        total = sum(len(m.text) for m in self.messages)
        if total > CONVERSATION_MAX_CHARS:
            raise ValueError(
                f"the messages hold {total:,} characters, more than {CONVERSATION_MAX_CHARS:,}"
            )
        return self


class CompletionUsage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class AssistantReply(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class Choice(BaseModel):
    index: int = 0
    message: AssistantReply
    finish_reason: Literal["stop"] = "stop"


class ChatCompletion(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    usage: CompletionUsage
    citations: list[CitationPublic]


class Delta(BaseModel):
    role: Literal["assistant"] | None = None
    content: str | None = None
    reasoning_content: str | None = None


class ChunkChoice(BaseModel):
    index: int = 0
    delta: Delta
    finish_reason: Literal["stop"] | None = None


class ChatCompletionChunk(BaseModel):
    id: str
    object: Literal["chat.completion.chunk"] = "chat.completion.chunk"
    created: int
    model: str
    choices: list[ChunkChoice]
    usage: CompletionUsage | None = None
    citations: list[CitationPublic] | None = None


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str = "docuchat"


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


class OpenAIErrorDetail(BaseModel):
    message: str
    type: str
    param: str | None = None
    code: str | None = None


class OpenAIError(BaseModel):
    error: OpenAIErrorDetail
