"""The terminal view of a research run: each tool step as it happens, then the answer.

A consumer of the runtime's one event stream, like the server's SSE and the
trace file.
"""

from __future__ import annotations

import json

from rich.console import Console
from rich.markup import escape

from docuchat.agent import Event
from docuchat.research import NO_ANSWER, NOT_ADDRESSED, Answer


def _short(value: object, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class LiveSteps:
    """Prints one line when a tool starts and one when it finishes."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def __call__(self, event: Event) -> None:
        if event.type == "tool_call_started":
            self.console.print(
                f"[dim]…[/] [bold]{event.name}[/] {escape(_short(event.message))}",
                highlight=False,
            )
        elif event.type == "tool_call_finished":
            mark = "[green]✓[/]" if event.ok else "[red]✗[/]"
            repeated = " [yellow](repeated: answered from memory)[/]" if event.repeated else ""
            self.console.print(
                f"{mark} [bold]{event.name}[/] {escape(_short(event.output_summary, 100))}"
                f"{repeated} [dim]{event.duration_ms:.0f} ms[/]",
                highlight=False,
            )
        elif event.type == "limit_reached":
            self.console.print(f"[yellow]limit {event.limit}[/]: {escape(event.detail)}")


def _addressing(answer: Answer, n: int, verified: bool) -> str:
    """Whether verified citation ``n`` addresses the question, and if not why (" · …")."""
    if not verified or answer.relevance is None or n not in answer.relevance.citations:
        return ""
    cited = answer.relevance.citations[n]
    if cited.addresses:
        return " · [green]addresses the question[/]"
    why = "; ".join(cited.judged.reasons())
    return f" · [yellow]does not address the question[/] [dim]({escape(why)})[/]"


def print_answer(console: Console, answer: Answer) -> None:
    console.print()
    if answer.presentation == "not_an_answer":
        # Supported, maybe, but not about what was asked: shown as reading, not as an answer.
        console.print(f"[yellow]{NO_ANSWER}[/] {NOT_ADDRESSED}")
        console.print(f"[dim]{escape(answer.answer)}[/]", highlight=False)
    else:
        console.print(escape(answer.answer) or "[dim](no answer)[/]", highlight=False)
    if answer.presentation == "partial" and answer.relevance is not None:
        missing = [p.part.text for p in answer.relevance.parts if not p.cited]
        console.print(
            f"[yellow](answers {answer.relevance.addressed_parts} of "
            f"{len(answer.relevance.parts)} parts; not addressed: "
            f"{escape('; '.join(missing))})[/]",
            highlight=False,
        )
    notes = []
    if answer.forced:
        notes.append(f"forced by limit {answer.outcome}")
    elif answer.outcome != "answered":
        notes.append(f"outcome {answer.outcome}")
    if answer.reminded:
        notes.append("the model answered without searching: reminded to search first")
    if answer.extractive:
        notes.append(
            f"the model failed ({answer.fallback_reason}); the answer quotes the passages read"
        )
    elif answer.fallback:
        notes.append(f"agent failed ({answer.fallback_reason}); pipeline fallback used")
    if answer.mode_reason:
        notes.append(answer.mode_reason)
    if answer.removed_citations:
        removed = ", ".join(f"[{n}]" for n in answer.removed_citations)
        notes.append(f"removed citations to passages never opened: {removed}")
    if notes:
        console.print(f"[yellow]({'; '.join(escape(n) for n in notes)})[/]")
    if answer.citations:
        console.print()
        console.print("[bold]Sources[/]")
        for c in answer.citations:
            status = "[green]verified[/]" if c.verified else "[red]not verified[/]"
            status += _addressing(answer, c.n, c.verified)
            console.print(
                f"  [{c.n}] {escape(c.title)}, {escape(c.label)} · {status}\n"
                f"      [dim]“{escape(_short(c.quote, 160))}”[/]",
                highlight=False,
            )
    for claim in answer.unsupported_claims:
        console.print(f"[yellow]  unsupported claim:[/] {escape(claim)}", highlight=False)
    usage = answer.total_usage
    estimated = (
        f" ({usage.estimated_calls} of {len(usage.model_calls)} calls estimated: "
        "the server reported no usage)"
        if usage.estimated_calls
        else ""
    )
    console.print(
        f"[dim]{usage.tool_calls} tool calls · {len(usage.model_calls)} model calls · "
        f"{usage.input_tokens}+{usage.output_tokens} tokens{estimated} · "
        f"{usage.wall_ms / 1000:.1f} s[/]"
    )
    console.print(f"[dim]model: {escape(_model_line(answer))}[/]", highlight=False)


def _model_line(answer: Answer) -> str:
    parts = [answer.model or "?"]
    if answer.model_choice:
        parts.append(f"({answer.model_choice})")
    if answer.context_window is not None:
        window = answer.context_window
        parts.append(f"· window {window.tokens} tokens ({window.source})")
    return " ".join(parts)
