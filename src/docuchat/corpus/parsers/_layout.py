"""Lines of located words (a PDF's text layer, OCR) into paragraphs with exact boxes.

A paragraph's text is its words joined by one space (none after a word hyphenated
at a line end), and each word keeps its box as a piece of the block, so every
character range of the stored text can be traced to where it is drawn.

A page holds thousands of words: their offsets are computed in numpy for the whole
page at once (a cumulative sum of lengths and spaces, restarted at each line, then at
each paragraph), so that no Python object is made per word beyond its text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from docuchat.corpus.parsers._document import Pieces

Box = tuple[float, float, float, float]
Boxes = npt.NDArray[np.float64]  # rows of x0, y0, x1, y1; a row of NaN: drawn nowhere we know
NOWHERE = (np.nan,) * 4

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffe\uffff]")
_SHORT_LINE = 0.75  # of a full line on the page: such a line ends a paragraph
_CLAUSE_ENDS = (".", "!", "?", ":", ";", ",", "…", '"', "”", ")")
_SEPARATORS = ("", " ", "\n", "\n")  # before a word: by (first of its line, spaced) as 2 bits


@dataclass(frozen=True, slots=True)
class Word:
    text: str
    box: Box | None  # None: drawn nowhere we can tell
    glued: bool = False  # follows the previous word without a space (a hyphenated word's end)


@dataclass(frozen=True, slots=True, eq=False)
class Lines:
    """A page's lines: each one's text (its words joined by one space, none before a glued
    word), whether its first word is glued to the line before, and the piece of every
    located word: its line, its span in that line's text, its box."""

    texts: list[str]
    glued: list[bool]
    line: npt.NDArray[np.intp]  # per piece, in text order
    spans: npt.NDArray[np.int64]  # per piece: start and end in its line's text
    boxes: Boxes  # per piece

    @classmethod
    def of(cls, lines: Sequence[Iterable[Word]]) -> Lines:
        """The lines of ``Word`` lists (OCR's)."""
        words = [(number, word) for number, line in enumerate(lines) for word in line]
        return laid_out(
            [word.text for _, word in words],
            np.array([word.box or NOWHERE for _, word in words], dtype=np.float64).reshape(-1, 4),
            np.array([word.glued for _, word in words], dtype=bool),
            np.array([number for number, _ in words], dtype=np.intp),
            len(lines),
        )


def laid_out(
    texts: list[str],
    boxes: Boxes,
    glued: npt.NDArray[np.bool_],
    line: npt.NDArray[np.intp],
    count: int,
) -> Lines:
    """``count`` lines of the words ``texts`` (clean, in order), the word ``i`` in the line
    ``line[i]`` (non-decreasing) with its box and whether it is glued to the one before."""
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    first = np.ones(len(texts), dtype=bool)
    first[1:] = line[1:] != line[:-1]
    spaced = ~first & ~glued
    starts = _offsets(lengths, spaced, first)
    # The written lines' texts in one string, a line end before each one's first word.
    separators = map(_SEPARATORS.__getitem__, (2 * first + spaced).tolist())
    written = "".join(map(str.__add__, separators, texts))[1:].split("\n") if texts else []
    line_texts, line_glued = [""] * count, [False] * count
    for number, text, glue in zip(
        line[first].tolist(), written, glued[first].tolist(), strict=True
    ):
        line_texts[number], line_glued[number] = text, glue
    drawn = ~np.isnan(boxes[:, 0])
    spans = np.stack([starts, starts + lengths], axis=1)[drawn]
    return Lines(line_texts, line_glued, line[drawn], spans, boxes[drawn])


def join_paragraphs(lines: Lines, ranges: Sequence[range]) -> list[tuple[str, Pieces]]:
    """Each range of lines (consecutive, covering them in order) as one paragraph: its
    lines' texts joined by one space (none before a glued line), with its words' pieces."""
    count = len(lines.texts)
    lengths = np.fromiter(map(len, lines.texts), dtype=np.int64, count=count)
    first = np.zeros(count, dtype=bool)
    first[[r.start for r in ranges if r]] = True
    written = lengths > 0
    # A written line is spaced from the paragraph's text so far, if there is any.
    written_before: npt.NDArray[np.int64] = np.cumsum(written) - written
    written_before -= np.maximum.accumulate(np.where(first, written_before, 0))
    spaced = written & ~np.array(lines.glued, dtype=bool) & (written_before > 0)
    spans = lines.spans + _offsets(lengths, spaced, first)[lines.line][:, None]
    begins = np.searchsorted(lines.line, [r.start for r in ranges]).tolist()
    ends = np.searchsorted(lines.line, [r.stop for r in ranges]).tolist()
    spacing = zip(lines.texts, spaced.tolist(), strict=True)
    texts = [" " + text if space else text for text, space in spacing]
    return [
        ("".join(texts[r.start : r.stop]), Pieces(spans[begin:end], lines.boxes[begin:end]))
        for r, begin, end in zip(ranges, begins, ends, strict=True)
    ]


def paragraph(lines: Lines) -> tuple[str, Pieces]:
    """All the lines as one paragraph."""
    return join_paragraphs(lines, [range(len(lines.texts))])[0]


def _offsets(
    lengths: npt.NDArray[np.int64], spaced: npt.NDArray[np.bool_], first: npt.NDArray[np.bool_]
) -> npt.NDArray[np.int64]:
    """Where each item starts in the text of its group (a group begins at each ``first``):
    the group's items written one after the other, a space before each ``spaced`` one."""
    total = lengths + spaced
    before = np.cumsum(total) - total
    offsets: npt.NDArray[np.int64] = before - np.maximum.accumulate(np.where(first, before, 0))
    return offsets + spaced


def located_words(text: str, box: Box | None, *, glued: bool = False) -> list[Word]:
    """Words of ``text`` (NFKC-normalised, control characters dropped), sharing ``box`` in
    proportion to their characters when normalisation split it (rare: "a\u00a0b")."""
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


def paragraphs_by_length(texts: Sequence[str]) -> Iterator[tuple[range, bool]]:
    """``(lines, is_heading)`` per paragraph of the lines ``texts``: a line clearly shorter
    than a full line of the page ends one, and stands alone if it does not end like a
    sentence (a heading, a label, a page number). Blank paragraphs included."""
    short = _SHORT_LINE * _full_line_length(texts)
    first = 0
    for index, text in enumerate(texts):
        if len(text) >= short:
            continue
        if text.endswith(_CLAUSE_ENDS):  # the last line of a paragraph
            yield range(first, index + 1), False
        else:
            yield range(first, index), False
            yield range(index, index + 1), True
        first = index + 1
    yield range(first, len(texts)), False


def _full_line_length(texts: Sequence[str]) -> int:
    """The length of a typical full line: the upper quartile, so that a few wide
    lines (a heading across two columns, two lines PDFium joined at a hyphen)
    do not make every ordinary line look short."""
    lengths = sorted(len(text) for text in texts if text)
    return lengths[len(lengths) * 3 // 4] if lengths else 0
