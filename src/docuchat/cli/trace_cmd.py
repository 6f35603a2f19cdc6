"""``docuchat trace show FILE``: a run's JSONL trace as a readable tree."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from docuchat.agent.trace import TraceError, read_trace, render_tree


@click.group()
def trace() -> None:
    """Inspect run traces (JSONL, one event per line)."""


@trace.command("show")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
def show(file: Path) -> None:
    """Render FILE as a tree of iterations, tool calls and the outcome."""
    try:
        tree = render_tree(list(read_trace(file)))
    except TraceError as exc:
        raise click.ClickException(str(exc)) from None
    Console(soft_wrap=True).print(tree)
