"""The events of a streamed answer, and how the runtime's events become them.

A consumer of the runtime's one event stream, like the CLI's live view: each
tool call becomes a ``step`` when it starts (``running``) and again when it
ends (``complete`` or ``error``, same ``step_id``), with a message a person
can read ("Searching for: ...", "Found 3 passages in 2 documents", "Read
Valuation Report, page 2"); model text becomes ``answer_delta``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from docuchat.agent import Event, ToolCallFinished, ToolCallStarted
from docuchat.research.conversation import step_of
from docuchat.server.schemas import AskResult, StepPublic, finished_step


class RunEvent(BaseModel):
    type: Literal["run"] = "run"
    run_id: str
    conversation_id: str | None


class StepEvent(StepPublic):
    type: Literal["step"] = "step"


class AnswerDeltaEvent(BaseModel):
    type: Literal["answer_delta"] = "answer_delta"
    text: str
    model_call: int = Field(
        description="Which model call of the run wrote this text (1, 2, ...): text of an "
        "earlier call was the model's note on its way to the answer"
    )


class FinalEvent(AskResult):
    type: Literal["final"] = "final"


class ErrorEvent(BaseModel):
    """The run broke for a reason that is not an outcome (a server fault); no final follows."""

    type: Literal["error"] = "error"
    message: str


StreamEvent = Annotated[
    RunEvent | StepEvent | AnswerDeltaEvent | FinalEvent | ErrorEvent, Field(discriminator="type")
]

DONE = "data: [DONE]\n\n"


def stream_response(description: str, event: str) -> dict[str, Any]:
    """OpenAPI for a 200 that is JSON, or with ``stream: true`` server-sent events.

    Each event's ``data`` is one ``event`` (a component schema) as JSON, or
    the closing ``[DONE]``.
    """
    data = {
        "anyOf": [
            {"type": "string", "const": "[DONE]"},
            {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": {"$ref": f"#/components/schemas/{event}"},
            },
        ]
    }
    return {
        "description": description,
        "content": {
            "text/event-stream": {
                "schema": {"type": "object", "required": ["data"], "properties": {"data": data}}
            }
        },
    }


def sse(event: BaseModel) -> str:
    """One server-sent event: a ``data:`` line with the event's JSON."""
    return f"data: {event.model_dump_json()}\n\n"


class StepTranslator:
    """Turns one run's runtime events into stream events: each tool call's presentation
    (its action and messages) comes with the event, from the tool itself."""

    def __init__(self) -> None:
        self._model_calls = 0

    def translate(self, event: Event) -> StepEvent | AnswerDeltaEvent | None:
        if event.type == "model_request":
            self._model_calls += 1
        elif event.type == "text_delta":
            return AnswerDeltaEvent(text=event.text, model_call=self._model_calls)
        elif event.type == "tool_call_started":
            return _started(event)
        elif event.type == "tool_call_finished":
            return _finished(event)
        return None


def _started(event: ToolCallStarted) -> StepEvent:
    return StepEvent(
        step_id=event.call_id,
        tool_name=event.name,
        tool_input=dict(event.input),
        tool_output=None,
        tool_status="running",
        action_type=event.action,
        message=event.message,
        timestamp=event.ts,
        duration_ms=None,
        detail=None,
    )


def _finished(event: ToolCallFinished) -> StepEvent:
    return StepEvent(**finished_step(step_of(event)))
