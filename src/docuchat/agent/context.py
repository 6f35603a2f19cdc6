"""Context-window discipline: tool results are the only thing ever evicted.

An evicted result is replaced by a one-line stub saying what was done, so the
model still knows the call happened. The system prompt, the user's questions
and the model's own messages are never touched.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence

from docuchat.models.base import Message, ToolCall, ToolResult, ToolResultsMessage

STUB_PREFIX = "[evicted]"


def stub(call: ToolCall | None, result: ToolResult, summary: str) -> str:
    args = json.dumps(dict(call.arguments), ensure_ascii=False)[:200] if call else "{}"
    return (
        f"{STUB_PREFIX} {result.name}({args}) returned: {summary}. "
        "Full result removed to save context."
    )


def is_stub(result: ToolResult) -> bool:
    return result.content.startswith(STUB_PREFIX)


def _calls_by_id(messages: Sequence[Message]) -> dict[str, ToolCall]:
    return {c.id: c for m in messages if m.role == "assistant" for c in m.tool_calls}


def _replace(
    messages: list[Message],
    position: int,
    victims: set[str],
    calls: Mapping[str, ToolCall],
    summarize: Callable[[ToolResult], str],
) -> None:
    message = messages[position]
    assert isinstance(message, ToolResultsMessage)
    messages[position] = ToolResultsMessage(
        tuple(
            ToolResult(r.call_id, r.name, stub(calls.get(r.call_id), r, summarize(r)), r.is_error)
            if r.call_id in victims
            else r
            for r in message.results
        )
    )


def evict_oldest(
    messages: list[Message],
    fits: Callable[[list[Message]], bool],
    summarize: Callable[[ToolResult], str],
) -> list[str]:
    """Stub tool results, oldest first, until ``fits(messages)``; returns the evicted call ids."""
    calls = _calls_by_id(messages)
    evicted: list[str] = []
    for position, message in enumerate(messages):
        if fits(messages):
            break
        if not isinstance(message, ToolResultsMessage):
            continue
        for result in message.results:
            if is_stub(result):
                continue
            _replace(messages, position, {result.call_id}, calls, summarize)
            evicted.append(result.call_id)
            if fits(messages):
                return evicted
    return evicted


def apply_retention(
    messages: list[Message],
    keep_last: Mapping[str, int],
    summarize: Callable[[ToolResult], str],
) -> list[str]:
    """Keep only the newest ``keep_last[tool]`` successful results of each such tool in full."""
    if not keep_last:
        return []
    seen: dict[str, int] = {}
    victims: set[str] = set()
    for message in reversed(messages):
        if not isinstance(message, ToolResultsMessage):
            continue
        for result in reversed(message.results):
            limit = keep_last.get(result.name)
            if limit is None or result.is_error or is_stub(result):
                continue
            seen[result.name] = seen.get(result.name, 0) + 1
            if seen[result.name] > limit:
                victims.add(result.call_id)
    if victims:
        calls = _calls_by_id(messages)
        for position, message in enumerate(messages):
            if isinstance(message, ToolResultsMessage) and any(
                r.call_id in victims for r in message.results
            ):
                _replace(messages, position, victims, calls, summarize)
    return sorted(victims)
