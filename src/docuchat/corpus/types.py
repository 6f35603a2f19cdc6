"""What parsing and chunking produce, and what the store keeps.

Offsets are character offsets into ``ParsedDocument.text`` (the document's
whole extracted text, pages joined by ``PAGE_SEPARATOR``), so a citation can be
shown and highlighted exactly: ``doc.text[chunk.start:chunk.end] == chunk.text``.

Where text came from in the original: every block has its page; PDF pages (text
layer or OCR) also give ``PageBoxes``, the box of each run of characters; slides,
sheets and sections are a block's ``place``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

PAGE_SEPARATOR = "\n\n"
DEFAULT_MAX_BYTES = 50 * 1024 * 1024
"""The largest file parsed unless a caller says otherwise."""


@dataclass(frozen=True, slots=True)
class Slide:
    number: int  # 1-based

    def label(self) -> str:
        return f"slide {self.number}"


@dataclass(frozen=True, slots=True)
class SheetCells:
    """A rectangle of cells on one sheet; rows and columns 1-based, inclusive."""

    sheet: str
    first_row: int
    last_row: int
    first_column: int
    last_column: int

    @property
    def cells(self) -> str:
        """The range as a spreadsheet writes it: ``A2:C2``."""
        first = f"{column_letters(self.first_column)}{self.first_row}"
        last = f"{column_letters(self.last_column)}{self.last_row}"
        return first if first == last else f"{first}:{last}"

    def label(self) -> str:
        return f"{self.sheet}!{self.cells}"

    def joined(self, other: SheetCells) -> SheetCells:
        """The smallest range holding both (of the same sheet)."""
        return SheetCells(
            self.sheet,
            min(self.first_row, other.first_row),
            max(self.last_row, other.last_row),
            min(self.first_column, other.first_column),
            max(self.last_column, other.last_column),
        )


@dataclass(frozen=True, slots=True)
class Section:
    """The heading a block stands under: a chapter of an e-book, a part of an e-mail, a
    heading of a page of HTML, Markdown or Word."""

    heading: str
    instead_of_page: bool = False
    """Whether the section is what a reader looks for in place of a page (a chapter of an
    e-book, a part of an e-mail), or only says more than the page does."""

    def label(self) -> str:
        return self.heading


Place = Slide | SheetCells | Section


@dataclass(frozen=True, slots=True)
class Block:
    """A run of text on one page (a paragraph, a heading, a list item, a table row)."""

    page: int  # 1-based
    start: int
    end: int
    place: Place | None = None


@dataclass(frozen=True, slots=True, eq=False)
class PageBoxes:
    """Where one page's text is drawn: the characters ``spans[i]`` (start, end offsets
    in the document text) lie in ``boxes[i]`` (x0, y0, x1, y1 as fractions of the
    page's width and height as shown, origin top-left). One span per word-piece of a
    line (a word hyphenated across two lines is two), in text order."""

    page: int
    spans: npt.NDArray[np.int64]  # (n, 2)
    boxes: npt.NDArray[np.float32]  # (n, 4)

    def __post_init__(self) -> None:
        if self.spans.shape != (len(self.spans), 2) or self.boxes.shape != (len(self.spans), 4):
            raise ValueError(f"spans {self.spans.shape} and boxes {self.boxes.shape} disagree")


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file inside a document (an e-mail's attachment), to be ingested on its own."""

    name: str
    data: bytes


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    title: str
    text: str
    blocks: tuple[Block, ...]
    page_count: int
    media_type: str  # "application/pdf", "text/markdown", ...
    metadata: Mapping[str, Any] = field(default_factory=dict)
    boxes: tuple[PageBoxes, ...] = ()  # pages with a text layer or OCR, in page order
    attachments: tuple[Attachment, ...] = ()


@dataclass(frozen=True, slots=True)
class PlaceSpan:
    """The part ``[start, end)`` of a chunk (document offsets) that stands at ``place``."""

    start: int
    end: int
    place: Place


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
    places: tuple[PlaceSpan, ...] = ()  # slides, cells, sections the chunk covers

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


def column_letters(column: int) -> str:
    """1 -> A, 26 -> Z, 27 -> AA."""
    letters = ""
    while column > 0:
        column, remainder = divmod(column - 1, 26)
        letters = chr(ord("A") + remainder) + letters
    return letters
