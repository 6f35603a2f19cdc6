"""Lines of located words (a PDF's text layer, OCR) into paragraphs with exact boxes.

A paragraph's text is its words joined by one space (none after a word hyphenated
at a line end), and each word keeps its box as a piece of the block, so every
character range of the stored text can be traced to where it is drawn.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from docuchat.corpus.parsers._document import Piece

Box = tuple[float, float, float, float]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffe\uffff]")
_SHORT_LINE = 0.75  # of a full line on the page: such a line ends a paragraph
_CLAUSE_ENDS = (".", "!", "?", ":", ";", ",", "…", '"', "”", ")")


@dataclass(frozen=True, slots=True)
class Word:
    text: str
    box: Box | None  # None: drawn nowhere we can tell
    glued: bool = False  # follows the previous word without a space (a hyphenated word's end)


@dataclass(frozen=True, slots=True)
class Line:
    """A line's words joined by one space (none before a glued word), with each located
    word's piece of that text."""

    text: str
    pieces: list[Piece]
    glued: bool = False  # its first word follows the previous line's last without a space

    @classmethod
    def of(cls, words: Iterable[Word]) -> Line:
        parts: list[str] = []
        pieces: list[Piece] = []
        length = 0
        glued = False
        for word in words:
            if not parts:
                glued = word.glued
            elif not word.glued:
                parts.append(" ")
                length += 1
            if word.box is not None:
                pieces.append((length, length + len(word.text), word.box))
            parts.append(word.text)
            length += len(word.text)
        return cls("".join(parts), pieces, glued)


def located_words(text: str, box: Box | None, *, glued: bool = False) -> list[Word]:
    """Words of ``text`` (NFKC-normalised, control characters dropped), sharing ``box`` in
    proportion to their characters when normalisation split it (rare: "a\u00a0b")."""
    if text.isascii() and text.isprintable() and " " not in text:  # as it stays: most words
        return [Word(text, box, glued)] if text else []
    parts = _CONTROL.sub("", unicodedata.normalize("NFKC", text)).split()
    if len(parts) <= 1 or box is None:
        return [Word(part, box, glued) for part in parts]
    total = sum(len(part) for part in parts) + len(parts) - 1
    width = (box[2] - box[0]) / total
    words, position = [], 0
    for index, part in enumerate(parts):
        x0 = box[0] + width * position
        words.append(Word(part, (x0, box[1], x0 + width * len(part), box[3]), glued and not index))
        position += len(part) + 1
    return words


def paragraph(lines: Sequence[Line]) -> tuple[str, list[Piece]]:
    """The text of ``lines`` as one paragraph, with each located word's piece."""
    parts: list[str] = []
    pieces: list[Piece] = []
    length = 0
    for line in lines:
        if not line.text:
            continue
        if parts and not line.glued:
            parts.append(" ")
            length += 1
        pieces.extend((length + first, length + last, box) for first, last, box in line.pieces)
        parts.append(line.text)
        length += len(line.text)
    return "".join(parts), pieces


def paragraphs_by_length(lines: Sequence[Line]) -> Iterator[tuple[list[Line], bool]]:
    """``(lines, is_heading)`` per paragraph: a line clearly shorter than a full line of
    the page ends one, and stands alone if it does not end like a sentence (a heading,
    a label, a page number). Blank paragraphs included."""
    short = _SHORT_LINE * _full_line_length([line.text for line in lines])
    current: list[Line] = []
    for line in lines:
        if len(line.text) >= short:
            current.append(line)
        elif line.text.endswith(_CLAUSE_ENDS):  # the last line of a paragraph
            yield [*current, line], False
            current = []
        else:
            yield current, False
            yield [line], True
            current = []
    yield current, False


def _full_line_length(texts: list[str]) -> int:
    """The length of a typical full line: the upper quartile, so that a few wide
    lines (a heading across two columns, two lines PDFium joined at a hyphen)
    do not make every ordinary line look short."""
    lengths = sorted(len(text) for text in texts if text)
    return lengths[len(lengths) * 3 // 4] if lengths else 0
