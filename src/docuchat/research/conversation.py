"""Conversations: turns saved after each answer, replayed as history for follow-ups."""

from __future__ import annotations

from collections.abc import Sequence

from docuchat.models.base import AssistantMessage, Message, UserMessage
from docuchat.research.agent import Answer
from docuchat.store.accounts import Turn

TITLE_CHARS = 80


def history_messages(turns: Sequence[Turn], keep: int) -> list[Message]:
    """The last ``keep`` answered turns as plain user and assistant messages."""
    answered = [t for t in turns if t.answer][-keep:] if keep else []
    return [m for t in answered for m in (UserMessage(t.question), AssistantMessage(t.answer))]


def turn_of(answer: Answer) -> Turn:
    return Turn(answer.question, answer.answer, tuple(answer.citation_dicts()), answer.outcome)


def title_of(question: str) -> str:
    title = " ".join(question.split())
    return title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…"
