"""Split a parsed document into overlapping chunks with exact offsets.

A chunk holds at most ``size`` characters and ends, by preference, at a
paragraph break, else at a sentence end or line break (both only in its second
half, so chunks do not get small), else between two words; a break right after
a heading-like line is passed over, so headings open chunks instead of ending
them. Only a single word
longer than ``size`` is cut inside. The next chunk starts up to ``overlap``
characters before the previous one ended, at a sentence start if one is in
reach, else at a word start. Chunks never start or end with whitespace, and
together they cover every non-whitespace character of the text.

Each step looks only at a window of about ``size`` characters, so chunking is
linear in the length of the text.
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right
from collections.abc import Iterator

from docuchat.corpus.types import Block, Chunk, ParsedDocument, PlaceSpan

__all__ = ["chunk_document"]

_WHITESPACE = re.compile(r"\s+")
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")
# The whitespace after a sentence's final punctuation (and closing quotes or
# brackets), or a line break: group 1 is where the whitespace begins.
_SENTENCE_BREAK = re.compile(r"(?:[.!?…][\"'”’)\]]*|(?=\n))(\s)")
_PUNCTUATION_REACH = 4  # how far before a window a sentence's punctuation may sit
_HEADING_LENGTH = 80  # a line at least this long is not a heading
_SENTENCE_ENDS = (".", "!", "?", ":", ";", "…", '"', "'", "”", "’", ")", "]")


def chunk_document(
    doc: ParsedDocument, *, doc_hash: str, size: int = 1000, overlap: int = 150
) -> list[Chunk]:
    """Chunks of ``doc.text`` with ``doc.text[chunk.start:chunk.end] == chunk.text``."""
    if size < 1 or not 0 <= overlap < size:
        raise ValueError(f"need size >= 1 and 0 <= overlap < size, got {size=} {overlap=}")
    block_starts = [block.start for block in doc.blocks]
    # The first block of each page after the first: where the page begins.
    breaks = [
        (block.start, block.page)
        for before, block in itertools.pairwise(doc.blocks)
        if block.page != before.page
    ]

    def page_at(offset: int) -> int:
        if not doc.blocks:
            return 1
        return doc.blocks[max(bisect_right(block_starts, offset) - 1, 0)].page

    return [
        Chunk(
            id=f"{doc_hash[:12]}-{index:04d}",
            index=index,
            text=doc.text[start:end],
            start=start,
            end=end,
            page=page_at(start),
            page_end=page_at(end - 1),
            page_breaks=tuple(b for b in breaks if start < b[0] < end),
            places=_places(doc.blocks, block_starts, start, end),
        )
        for index, (start, end) in enumerate(_spans(doc.text, size, overlap))
    ]


def _places(
    blocks: tuple[Block, ...], block_starts: list[int], start: int, end: int
) -> tuple[PlaceSpan, ...]:
    """The placed blocks ``[start, end)`` overlaps, cut to it."""
    first = max(bisect_right(block_starts, start) - 1, 0)
    last = bisect_right(block_starts, end - 1)
    return tuple(
        PlaceSpan(max(block.start, start), min(block.end, end), block.place)
        for block in blocks[first:last]
        if block.place is not None and block.start < end and block.end > start
    )


def _spans(text: str, size: int, overlap: int) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each chunk, in order."""
    stop = len(text.rstrip())
    start = reached = _skip_whitespace(text, 0)
    while start < stop:
        if stop - start <= size:
            yield start, stop
            return
        cut = _cut(text, start, start + size, reached)
        if cut is None:  # from inside the overlap, no cut gets past the previous chunk
            start = reached
            continue
        end, reached = cut
        yield start, end
        start = _next_start(text, start, end, reached, overlap)


def _cut(text: str, start: int, limit: int, reached: int) -> tuple[int, int] | None:
    """Where a chunk starting at ``start`` ends (at most ``limit``, after ``reached``,
    where the previous chunk's trailing whitespace stopped) and where the whitespace
    after that end stops. None if a chunk starting inside the overlap cannot end
    past the previous one."""
    low = max(start + (limit - start) // 2, reached + 1)
    paragraphs = _breaks(_PARAGRAPH_BREAK, text, low, limit)
    position = _last_body_break(text, paragraphs)
    if position is None:
        sentences = _breaks(_SENTENCE_BREAK, text, low, limit)
        position = _last_body_break(text, sentences)
        if position is None and (paragraphs or sentences):
            position = (paragraphs or sentences)[-1]  # all follow headings: short list items
    if position is not None:
        return _whitespace_run(text, position)
    for position in range(limit, max(start, reached), -1):
        if text[position].isspace():
            return _whitespace_run(text, position)
    if start < reached:
        return None
    return limit, limit  # one word longer than the chunk: cut inside it


def _next_start(text: str, start: int, end: int, after: int, overlap: int) -> int:
    """Where the chunk after ``[start, end)`` begins: the earliest sentence start,
    else word start, in the last ``overlap`` characters before ``end``; else ``after``,
    where the whitespace following the chunk stops."""
    earliest = max(end - overlap, start + 1)
    if earliest >= end:
        return after
    for match in _SENTENCE_BREAK.finditer(text, max(earliest - _PUNCTUATION_REACH, start), end):
        word_start = _skip_whitespace(text, match.start(1))
        if earliest <= word_start < end:
            return word_start
    for match in _WHITESPACE.finditer(text, earliest - 1, end):
        if earliest <= match.end() < end:
            return match.end()
    return after


def _breaks(pattern: re.Pattern[str], text: str, low: int, high: int) -> list[int]:
    """Where the whitespace of each match of ``pattern`` begins, within ``[low, high]``."""
    positions = []
    for match in pattern.finditer(text, low, high + 2):  # a break at ``high`` may need 2 chars
        begins = match.start(match.lastindex or 0)
        if begins > high:
            break
        positions.append(begins)
    return positions


def _last_body_break(text: str, positions: list[int]) -> int | None:
    """The last of ``positions`` that does not come right after a heading."""
    return next((p for p in reversed(positions) if not _after_heading(text, p)), None)


def _after_heading(text: str, position: int) -> bool:
    """Whether the line ending at ``position`` looks like a heading (short, without final
    punctuation): a chunk should not end with the heading of the text that follows."""
    window_start = max(position - _HEADING_LENGTH, 0)
    newline = text.rfind("\n", window_start, position)
    if newline < 0 and window_start > 0:
        return False  # a line this long is no heading
    line = text[newline + 1 : position]
    return bool(line.strip()) and not line.rstrip().endswith(_SENTENCE_ENDS)


def _whitespace_run(text: str, position: int) -> tuple[int, int]:
    """Where the whitespace run around ``position`` begins and ends; the chunk's own
    first character is not whitespace, so the run never reaches back past it."""
    begin = position
    while text[begin - 1].isspace():
        begin -= 1
    return begin, _skip_whitespace(text, position)


def _skip_whitespace(text: str, position: int) -> int:
    match = _WHITESPACE.match(text, position)
    return match.end() if match else position
