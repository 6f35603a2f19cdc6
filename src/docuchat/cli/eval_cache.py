"""The line both evals print about their cached index."""

from __future__ import annotations

from pathlib import Path

from rich.markup import escape


def cache_line(*, reused: bool, added: int, embedded: int, unit: str, where: Path) -> str:
    place = escape(str(where))
    if reused:
        return f"reused the cached index and embeddings: {place}"
    return (
        f"indexed {added} {unit} and embedded {embedded} texts; cached for the next run in {place}"
    )
