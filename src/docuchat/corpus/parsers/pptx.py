"""PowerPoint (.pptx) through python-pptx: slide text, tables and speaker notes.

python-pptx is the maintained reader of the format (shapes, placeholders, tables,
group shapes, notes) and reads the package with lxml, entities not resolved; the
zip is checked against decompression bombs before it is handed over. Each slide
is one page: its title, then its shapes' text in the order they were added (groups
opened), table rows with cells joined by `` | ``, then "Notes: ..." from the
speaker notes. Every block's place is its slide.
"""

from __future__ import annotations

from collections.abc import Iterator
from io import BytesIO
from typing import Any

from docuchat.corpus.parsers._document import DocumentBuilder, pick_title
from docuchat.corpus.parsers._zip import check_package
from docuchat.corpus.types import ParsedDocument, Slide
from docuchat.errors import CorruptDocument, ParseLimitExceeded

MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
MAX_SLIDES = 5000
MAX_SHAPES = 100_000  # in all slides, groups opened


def parse(data: bytes, stem: str) -> ParsedDocument:
    check_package(
        data,
        "PPTX",
        "ppt/presentation.xml",
        not_it="the content is not a PPTX (a zip without a presentation)",
    )
    from pptx import Presentation  # 0.3 s to import: only when a deck comes
    from pptx.exc import PackageNotFoundError

    try:
        deck = Presentation(BytesIO(data))
    except (PackageNotFoundError, KeyError, ValueError) as exc:
        raise CorruptDocument(f"the PPTX cannot be read ({exc})") from exc
    slides = list(deck.slides)
    if len(slides) > MAX_SLIDES:
        raise ParseLimitExceeded(f"the PPTX has {len(slides):,} slides (limit {MAX_SLIDES:,})")
    builder = DocumentBuilder()
    first_title = None
    budget = _Budget()
    for number, slide in enumerate(slides, start=1):
        place = Slide(number)
        title = slide.shapes.title
        title_text = title.text_frame.text if title is not None and title.has_text_frame else ""
        if title_text.strip() and first_title is None:
            first_title = title_text
        builder.add(title_text, number, place=place)
        for text in _shape_texts(slide.shapes, skip=title, budget=budget):
            builder.add(text, number, place=place)
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame
            if notes is not None and notes.text.strip():
                builder.add(f"Notes: {notes.text}", number, place=place)
    return builder.build(
        title=pick_title(deck.core_properties.title, first_title, fallback=stem),
        page_count=max(len(slides), 1),
        media_type=MEDIA_TYPE,
        empty_reason="the presentation's slides hold no text",
    )


class _Budget:
    shapes = 0

    def spend(self) -> None:
        self.shapes += 1
        if self.shapes > MAX_SHAPES:
            raise ParseLimitExceeded(f"the PPTX has more than {MAX_SHAPES:,} shapes")


def _shape_texts(shapes: Any, *, skip: Any, budget: _Budget) -> Iterator[str]:
    """Text of each shape (tables row by row), groups opened, without recursion."""
    stack = list(reversed(list(shapes)))
    while stack:
        shape = stack.pop()
        budget.spend()
        if skip is not None and shape.shape_id == skip.shape_id:
            continue
        if shape.shape_type is not None and getattr(shape, "shapes", None) is not None:
            stack.extend(reversed(list(shape.shapes)))  # a group
        elif getattr(shape, "has_table", False) and shape.has_table:
            for row in shape.table.rows:
                yield " | ".join(cell.text.strip() for cell in row.cells)
        elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            yield shape.text_frame.text
