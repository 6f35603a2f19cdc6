"""Turns a parser's blocks into one ``ParsedDocument`` with exact offsets.

Every parser yields cleaned text blocks with their page; the builder joins
them with ``PAGE_SEPARATOR`` and records each block's span, so offsets are
computed in one place and always refer to the stored text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from docuchat.corpus.types import (
    PAGE_SEPARATOR,
    Attachment,
    Block,
    PageBoxes,
    ParsedDocument,
    Place,
)
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


@dataclass(frozen=True, slots=True, eq=False)
class Pieces:
    """Where a block's characters are drawn: ``spans[i]`` (start and end in the block's
    text) in ``boxes[i]`` (x0, y0, x1, y1 as fractions of the page, top-left origin)."""

    spans: npt.NDArray[np.int64]  # (n, 2)
    boxes: npt.NDArray[np.float64]  # (n, 4)


class DocumentBuilder:
    """Collects ``(page, text)`` blocks in reading order and lays out the document text."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._blocks: list[Block] = []
        self._length = 0
        self._pieces: dict[int, list[tuple[int, Pieces]]] = {}

    @property
    def is_empty(self) -> bool:
        return not self._blocks

    @property
    def length(self) -> int:
        return self._length

    def add(
        self,
        text: str,
        page: int,
        *,
        place: Place | None = None,
        pieces: Pieces | None = None,
    ) -> None:
        """Append a block; blank blocks are skipped so they cannot create empty spans.

        ``pieces`` locate the block's characters on its page: their offsets are into
        ``text``, which must then be clean already (so that no offset moves).
        """
        cleaned = clean_text(text)
        if pieces is not None and cleaned != text:
            raise ValueError("a block with boxes must be clean text already")
        if not cleaned:
            return
        if self._parts:
            self._parts.append(PAGE_SEPARATOR)
            self._length += len(PAGE_SEPARATOR)
        self._parts.append(cleaned)
        start = self._length
        self._blocks.append(Block(page=page, start=start, end=start + len(cleaned), place=place))
        self._length += len(cleaned)
        if pieces is not None and len(pieces.spans):
            self._pieces.setdefault(page, []).append((start, pieces))

    def build(
        self,
        *,
        title: str,
        page_count: int,
        media_type: str,
        metadata: Mapping[str, Any] | None = None,
        empty_reason: str = "the document contains no text",
        attachments: tuple[Attachment, ...] = (),
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
            boxes=tuple(
                PageBoxes(
                    page,
                    np.concatenate([start + pieces.spans for start, pieces in blocks]),
                    np.concatenate([pieces.boxes for _, pieces in blocks]).astype(np.float32),
                )
                for page, blocks in sorted(self._pieces.items())
            ),
            attachments=attachments,
        )
