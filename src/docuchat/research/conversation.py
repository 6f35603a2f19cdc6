"""Conversations: turns saved after each answer, replayed as history for follow-ups.

A turn keeps its tool steps as a live view showed them (each with the model's words
written on the way), so a reopened conversation shows them again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from docuchat.agent import Event, ToolCallFinished
from docuchat.models.base import AssistantMessage, Message, UserMessage
from docuchat.research.agent import Answer
from docuchat.store.accounts import Turn, TurnStep

TITLE_CHARS = 80


def history_messages(turns: Sequence[Turn], keep: int) -> list[Message]:
    """The last ``keep`` answered turns as plain user and assistant messages."""
    answered = [t for t in turns if t.answer][-keep:] if keep else []
    return [m for t in answered for m in (UserMessage(t.question), AssistantMessage(t.answer))]


def turn_of(answer: Answer) -> Turn:
    return Turn(
        answer.question,
        answer.answer,
        tuple(answer.citation_dicts()),
        answer.outcome,
        steps=steps_of(answer.events),
        mode_reason=answer.mode_reason,
    )


def steps_of(events: Iterable[Event]) -> tuple[TurnStep, ...]:
    """The finished tool steps among ``events``, in order; each carries the text its model
    call wrote before making it."""
    steps: list[TurnStep] = []
    notes: dict[str, str] = {}
    written = ""
    for event in events:
        if event.type == "model_request":
            written = ""
        elif event.type == "text_delta":
            written += event.text
        elif event.type == "tool_call_started":
            notes[event.call_id], written = written.strip(), ""
        elif event.type == "tool_call_finished":
            steps.append(step_of(event, note=notes.pop(event.call_id, "")))
    return tuple(steps)


def step_of(event: ToolCallFinished, *, note: str = "") -> TurnStep:
    """A finished tool call as people see it: its summary, or what went wrong."""
    if event.ok:
        message = event.output_summary
        if event.repeated:
            message += " (repeated call, answered from memory)"
    else:
        message = f"{event.name} failed: {event.output.removeprefix('Error: ')}"
    return TurnStep(
        step_id=event.call_id,
        tool_name=event.name,
        tool_input=dict(event.input),
        status="complete" if event.ok else "error",
        action=event.action,
        message=message,
        summary=event.output_summary,
        detail=event.output,
        duration_ms=round(event.duration_ms, 1),
        timestamp=event.ts,
        note=note,
    )


def title_of(question: str) -> str:
    title = " ".join(question.split())
    return title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…"
