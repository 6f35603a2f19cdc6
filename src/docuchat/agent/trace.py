"""Reading JSONL traces back and rendering them as a tree."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from rich.tree import Tree

from docuchat.errors import DocuchatError


class TraceError(DocuchatError):
    """A trace file could not be read."""


def read_trace(path: Path) -> Iterator[dict[str, Any]]:
    """The events of a trace file, one dict per line (blank lines skipped)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise TraceError(f"cannot read trace {path}: {exc.strerror}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TraceError(f"{path}:{number}: not a JSON event ({exc.msg})") from None
        if not isinstance(event, dict) or "type" not in event:
            raise TraceError(f"{path}:{number}: not an event (no 'type')")
        yield event


def _short(value: Any, limit: int = 100) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_tree(events: Iterable[dict[str, Any]]) -> Tree:
    """Run ─ attempts ─ iterations ─ model calls and tool calls ─ outcome."""
    root = Tree("run")
    attempt: Tree = root
    iteration: Tree = root
    for e in events:
        kind = e["type"]
        if kind == "run_started":
            root.label = (
                f"[bold]run {e['run_id']}[/] model={e['model']} input={_short(e['input'])!r}"
            )
        elif kind == "attempt_started":
            attempt = iteration = root.add(f"attempt {e['attempt']}")
        elif kind == "model_request":
            label = "synthesis (tools disabled)" if e["purpose"] == "synthesis" else "iteration"
            iteration = attempt.add(
                f"{label} {e['iteration']} · ~{e['estimated_input_tokens']} tokens in"
            )
        elif kind == "model_response":
            calls = ", ".join(c["name"] for c in e["tool_calls"]) or "no tool calls"
            text = f" text={_short(e['text'], 60)!r}" if e["text"] else ""
            iteration.add(
                f"model: {calls}{text} · {e['input_tokens']}+{e['output_tokens']} tokens"
                f" · {e['latency_ms']:.0f} ms"
            )
        elif kind == "tool_call_finished":
            status = "[green]ok[/]" if e["ok"] else f"[red]{e.get('error_code') or 'error'}[/]"
            repeated = " (repeated)" if e.get("repeated") else ""
            call = f"{e['name']}({_short(e['input'], 80)})"
            node = iteration.add(f"tool {call} {status}{repeated} · {e['duration_ms']:.0f} ms")
            node.add(_short(e["output_summary"], 120))
        elif kind == "validation_failed":
            attempt.add(f"[yellow]validation failed[/]: {_short(e['error'])}")
        elif kind == "context_evicted":
            iteration.add(f"context: evicted {len(e['call_ids'])} tool result(s) ({e['reason']})")
        elif kind == "limit_reached":
            root.add(f"[yellow]limit {e['limit']}[/] → {e['action']}: {e['detail']}")
        elif kind == "final_answer":
            forced = " [yellow](forced)[/]" if e["forced"] else ""
            root.add(f"[bold]outcome {e['outcome']}[/]{forced}: {_short(e['output'], 200)}")
        elif kind == "run_failed":
            phase = f" in {e['phase']}" if e.get("phase") else ""
            root.add(
                f"[bold red]outcome {e['outcome']}[/] ({e['error_code']}{phase}): {e['message']}"
            )
    return root
