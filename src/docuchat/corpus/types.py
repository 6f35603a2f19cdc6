"""What parsing and chunking produce, and what the store keeps.

Offsets are character offsets into ``ParsedDocument.text`` (the document's
whole extracted text, pages joined by ``PAGE_SEPARATOR``), so a citation can be
shown and highlighted exactly: ``doc.text[chunk.start:chunk.end] == chunk.text``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

PAGE_SEPARATOR = "\n\n"


@dataclass(frozen=True, slots=True)
class Block:
    """A run of text on one page (a paragraph, a heading, a list item)."""

    page: int  # 1-based
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    title: str
    text: str
    blocks: tuple[Block, ...]
    page_count: int
    media_type: str  # "application/pdf", "text/markdown", ...
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Chunk:
    id: str  # stable: derived from the document's content hash and the chunk's position
    index: int
    text: str
    start: int
    end: int
    page: int  # page of the chunk's first character
    page_end: int
    # Where later pages begin inside the chunk: (offset in the document text, page).
    page_breaks: tuple[tuple[int, int], ...] = ()

    def page_at(self, offset: int) -> int:
        """The page of the character at ``offset`` (in the document text) of this chunk."""
        return page_at(self.page, self.page_breaks, offset)


def page_at(first_page: int, page_breaks: tuple[tuple[int, int], ...], offset: int) -> int:
    """The page at ``offset`` in a span that starts on ``first_page`` and breaks at
    ``page_breaks`` (ascending offsets)."""
    page = first_page
    for start, next_page in page_breaks:
        if start > offset:
            break
        page = next_page
    return page
