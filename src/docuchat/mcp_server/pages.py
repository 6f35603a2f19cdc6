"""``resources/list`` in pages, as MCP paginates: an opaque cursor names the last document
listed and the next one, so a document removed between two requests skips nothing (an offset
would skip one)."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass

from docuchat.store.base import DocumentRecord

PAGE_SIZE = 100


class InvalidCursor(ValueError):
    """A cursor this server did not give (MCP answers it as invalid params)."""


@dataclass(frozen=True, slots=True)
class Page:
    records: list[DocumentRecord]
    next_cursor: str | None


def page_of(records: Sequence[DocumentRecord], cursor: str | None, size: int = PAGE_SIZE) -> Page:
    """The page after ``cursor`` of ``records`` (oldest first, as the library lists them)."""
    start = 0 if cursor is None else _start(records, *_decode(cursor))
    chunk = list(records[start : start + size])
    if start + size >= len(records):
        return Page(chunk, None)
    following = records[start + size]
    return Page(chunk, _encode(chunk[-1].id, following.id, following.added_at))


def _start(records: Sequence[DocumentRecord], last_id: str, next_id: str, next_at: str) -> int:
    index = {r.id: i for i, r in enumerate(records)}
    if next_id in index:
        return index[next_id]
    if last_id in index:
        return index[last_id] + 1
    # Both neighbours were removed since: the first document added no earlier than the next
    # one (added_at is to the second, so one of the page before may come twice, none is lost).
    return next((i for i, r in enumerate(records) if r.added_at >= next_at), len(records))


def _encode(*fields: str) -> str:
    return base64.urlsafe_b64encode(json.dumps(fields).encode()).decode()


def _decode(cursor: str) -> tuple[str, str, str]:
    try:
        fields = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (binascii.Error, UnicodeError, ValueError, TypeError):
        raise InvalidCursor(f"Invalid cursor: {cursor!r}") from None
    if not (
        isinstance(fields, list) and len(fields) == 3 and all(isinstance(f, str) for f in fields)
    ):
        raise InvalidCursor(f"Invalid cursor: {cursor!r}")
    return fields[0], fields[1], fields[2]
