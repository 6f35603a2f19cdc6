"""Turns a parser's blocks into one ``ParsedDocument`` with exact offsets.

Every parser yields cleaned text blocks with their page; the builder joins
them with ``PAGE_SEPARATOR`` and records each block's span, so offsets are
computed in one place and always refer to the stored text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from docuchat.corpus.types import PAGE_SEPARATOR, Block, ParsedDocument
from docuchat.errors import EmptyDocument

# C0/C1 control characters other than tab and newline, and the noncharacters
# U+FFFE/U+FFFF that extractors emit as markers: never useful in stored text.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffe\uffff]")
_TRAILING_SPACE = re.compile(r"[ \t\u00a0]+\n")
_BLANK_LINES = re.compile(r"\n{3,}")
_PLACEHOLDER_TITLES = frozenset({"", "untitled", "untitled document", "document"})


def clean_text(text: str) -> str:
    """Normalise newlines, drop control characters and trailing spaces, squeeze blank lines."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", text)
    text = _TRAILING_SPACE.sub("\n", text)
    return _BLANK_LINES.sub("\n\n", text).strip()


def pick_title(*candidates: str | None, fallback: str) -> str:
    """The first candidate that is a real title (not blank, not "untitled"), else ``fallback``."""
    for candidate in candidates:
        title = " ".join(clean_text(candidate or "").split())
        if title.lower() not in _PLACEHOLDER_TITLES:
            return title
    return fallback


class DocumentBuilder:
    """Collects ``(page, text)`` blocks in reading order and lays out the document text."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._blocks: list[Block] = []
        self._length = 0

    @property
    def is_empty(self) -> bool:
        return not self._blocks

    def add(self, text: str, page: int) -> None:
        """Append a block; blank blocks are skipped so they cannot create empty spans."""
        text = clean_text(text)
        if not text:
            return
        if self._parts:
            self._parts.append(PAGE_SEPARATOR)
            self._length += len(PAGE_SEPARATOR)
        self._parts.append(text)
        self._blocks.append(Block(page=page, start=self._length, end=self._length + len(text)))
        self._length += len(text)

    def build(
        self,
        *,
        title: str,
        page_count: int,
        media_type: str,
        metadata: Mapping[str, Any] | None = None,
        empty_reason: str = "the document contains no text",
    ) -> ParsedDocument:
        if self.is_empty:
            raise EmptyDocument(empty_reason)
        return ParsedDocument(
            title=title,
            text="".join(self._parts),
            blocks=tuple(self._blocks),
            page_count=page_count,
            media_type=media_type,
            metadata=dict(metadata or {}),
        )
