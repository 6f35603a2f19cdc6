"""Consumers of the event stream: user callbacks, the trace file, a live queue.

A callback that raises is recorded in the result and never breaks the run.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from docuchat.agent.events import (
    AttemptStarted,
    Event,
    ToolCallFinished,
    ToolCallStarted,
    ValidationFailed,
    event_to_dict,
)
from docuchat.agent.result import CallbackError

Callback = Callable[[Event], object]


@dataclass(frozen=True, slots=True)
class Callbacks:
    on_event: Callback | None = None
    on_tool_call: Callable[[ToolCallStarted], object] | None = None
    on_tool_result: Callable[[ToolCallFinished], object] | None = None
    on_attempt_start: Callable[[AttemptStarted], object] | None = None
    on_validation_failure: Callable[[ValidationFailed], object] | None = None


_BY_TYPE = {
    "tool_call_started": "on_tool_call",
    "tool_call_finished": "on_tool_result",
    "attempt_started": "on_attempt_start",
    "validation_failed": "on_validation_failure",
}


class EventSink:
    """Records every event of a run and fans it out."""

    def __init__(
        self,
        callbacks: Callbacks,
        trace: str | Path | None,
        queue: asyncio.Queue[Event | None] | None,
    ) -> None:
        self.events: list[Event] = []
        self.errors: list[CallbackError] = []
        self._callbacks = callbacks
        self._queue = queue
        self._trace: IO[str] | None = None
        if trace is not None:
            path = Path(trace)
            path.parent.mkdir(parents=True, exist_ok=True)
            self._trace = path.open("w", encoding="utf-8")

    def emit(self, event: Event) -> None:
        self.events.append(event)
        if self._trace is not None:
            self._trace.write(json.dumps(event_to_dict(event), ensure_ascii=False, default=str))
            self._trace.write("\n")
            self._trace.flush()
        specific = _BY_TYPE.get(event.type)
        if specific is not None:
            self._call(specific, event)
        if self._callbacks.on_event is not None:
            self._call("on_event", event)
        if self._queue is not None:
            self._queue.put_nowait(event)

    def _call(self, name: str, event: Event) -> None:
        callback = getattr(self._callbacks, name)
        if callback is None:
            return
        try:
            callback(event)
        except Exception as exc:
            self.errors.append(CallbackError(name, event.type, f"{type(exc).__name__}: {exc}"))

    def close(self) -> None:
        if self._trace is not None:
            self._trace.close()
            self._trace = None
