"""Pydantic's validation errors as one line that a person, or a model, can act on."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def describe(
    errors: Iterable[Mapping[str, Any]], *, whole: str, skip: int = 0, show_input: bool = False
) -> str:
    """``location: message; ...``: ``whole`` names an error of the whole value, ``skip``
    drops leading location parts (FastAPI's ``body``), ``show_input`` adds what was given."""
    return "; ".join(
        f"{'.'.join(str(part) for part in e['loc'][skip:]) or whole}: {e['msg']}"
        + (f" (got {e['input']!r})" if show_input else "")
        for e in errors
    )
