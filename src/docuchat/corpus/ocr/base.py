"""What an OCR engine returns: lines of words with their boxes, in reading order."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from statistics import median
from typing import Protocol

from PIL import Image

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 as fractions of the image

# A gap between two lines taller than this share of a line starts a paragraph
# (for engines that do not find paragraphs themselves).
_PARAGRAPH_GAP = 0.8


@dataclass(frozen=True, slots=True)
class OcrWord:
    text: str
    box: Box


@dataclass(frozen=True, slots=True)
class OcrLine:
    words: tuple[OcrWord, ...]
    paragraph: int | None = None  # the engine's paragraph number, if it finds paragraphs

    @property
    def box(self) -> Box:
        return (
            min(w.box[0] for w in self.words),
            min(w.box[1] for w in self.words),
            max(w.box[2] for w in self.words),
            max(w.box[3] for w in self.words),
        )


class OcrEngine(Protocol):
    name: str

    def read(self, image: Image.Image) -> list[OcrLine]:
        """The image's lines in reading order (empty if it holds no text)."""
        ...


def paragraphs(lines: Sequence[OcrLine]) -> Iterator[list[OcrLine]]:
    """Lines grouped into paragraphs: the engine's, else split at tall vertical gaps."""
    if not lines:
        return
    height = median(line.box[3] - line.box[1] for line in lines)
    group = [lines[0]]
    for before, line in itertools.pairwise(lines):
        if line.paragraph is not None:
            new = line.paragraph != before.paragraph
        else:
            new = line.box[1] - before.box[3] > _PARAGRAPH_GAP * height
        if new:
            yield group
            group = []
        group.append(line)
    yield group
