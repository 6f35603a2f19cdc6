"""The events of a streamed answer, and how the runtime's events become them.

A consumer of the runtime's one event stream, like the CLI's live view: each
tool call becomes a ``step`` when it starts (``running``) and again when it
ends (``complete`` or ``error``, same ``step_id``), with a message a person
can read ("Searching for: ...", "Found 3 passages in 2 documents", "Read
Valuation Report, page 2"); model text becomes ``answer_delta``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from docuchat.agent import Event, ToolCallFinished, ToolCallStarted
from docuchat.server.schemas import AskResult

ActionType = Literal["searching", "reading", "analysing", "summarising"]
ToolStatus = Literal["running", "complete", "error"]

ACTION_TYPES: dict[str, ActionType] = {
    "search_docs": "searching",
    "open_citation": "reading",
    "read_document": "reading",
    "get_document_summary": "summarising",
}


class RunEvent(BaseModel):
    type: Literal["run"] = "run"
    run_id: str
    conversation_id: str | None


class StepEvent(BaseModel):
    type: Literal["step"] = "step"
    step_id: str = Field(description="The tool call's id: the same for its running and end event")
    tool_name: str
    tool_input: dict[str, Any]
    tool_output: str | None = Field(description="A one-line summary of the tool's output")
    tool_status: ToolStatus
    action_type: ActionType
    message: str
    timestamp: float = Field(description="Unix time in seconds")
    duration_ms: float | None
    detail: str | None = Field(description="The tool's full output")


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
    """Turns one run's runtime events into stream events.

    Remembers the titles that searches returned, so that opening a passage can
    name its document before the passage arrives.
    """

    def __init__(self) -> None:
        self._titles: dict[str, str] = {}
        self._model_calls = 0

    def translate(self, event: Event) -> StepEvent | AnswerDeltaEvent | None:
        if event.type == "model_request":
            self._model_calls += 1
        elif event.type == "text_delta":
            return AnswerDeltaEvent(text=event.text, model_call=self._model_calls)
        elif event.type == "tool_call_started":
            return self._started(event)
        elif event.type == "tool_call_finished":
            return self._finished(event)
        return None

    def _started(self, event: ToolCallStarted) -> StepEvent:
        return StepEvent(
            step_id=event.call_id,
            tool_name=event.name,
            tool_input=dict(event.input),
            tool_output=None,
            tool_status="running",
            action_type=ACTION_TYPES.get(event.name, "analysing"),
            message=self._running_message(event.name, event.input),
            timestamp=event.ts,
            duration_ms=None,
            detail=None,
        )

    def _finished(self, event: ToolCallFinished) -> StepEvent:
        if event.ok:
            message = self._done_message(event.name, _json_object(event.output))
            if event.repeated:
                message += " (repeated call, answered from memory)"
        else:
            message = f"{event.name} failed: {event.output.removeprefix('Error: ')}"
        return StepEvent(
            step_id=event.call_id,
            tool_name=event.name,
            tool_input=dict(event.input),
            tool_output=event.output_summary,
            tool_status="complete" if event.ok else "error",
            action_type=ACTION_TYPES.get(event.name, "analysing"),
            message=message,
            timestamp=event.ts,
            duration_ms=round(event.duration_ms, 1),
            detail=event.output,
        )

    def _running_message(self, tool: str, arguments: Mapping[str, Any]) -> str:
        title = self._titles.get(str(arguments.get("docId")), "a document")
        if tool == "search_docs":
            return f"Searching for: {arguments.get('query', '')}"
        if tool == "open_citation":
            return f"Reading a passage of {title}"
        if tool == "read_document":
            return f"Reading {title}"
        if tool == "get_document_summary":
            return f"Summarising {title}"
        return f"Running {tool}"

    def _done_message(self, tool: str, output: dict[str, Any]) -> str:
        if tool == "search_docs" and "hits" in output:
            hits = output["hits"]
            self._titles.update({h["docId"]: h["title"] for h in hits})
            return _found(len(hits), len({h["docId"] for h in hits}))
        if tool in ("open_citation", "read_document") and "title" in output:
            return f"Read {output['title']}, page {output.get('page')}"
        if tool == "get_document_summary" and "title" in output:
            return f"Summarised {output['title']} ({output.get('pages')} pages)"
        return f"Finished {tool}"


def _found(passages: int, documents: int) -> str:
    if not passages:
        return "Found no passages"
    passage_word = "passage" if passages == 1 else "passages"
    document_word = "document" if documents == 1 else "documents"
    return f"Found {passages} {passage_word} in {documents} {document_word}"


def _json_object(text: str) -> dict[str, Any]:
    """The tool output as a JSON object, or empty when it is anything else."""
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
