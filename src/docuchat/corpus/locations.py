"""Where a span of the document text stands in the original: page boxes and places.

A quote's location is what a reader needs to find it: on a PDF page (text layer
or OCR) the boxes its own characters cover, one box per line; elsewhere the
slide, the sheet's cells or the section. Also the compact storage forms: a
page's boxes as a small binary blob, a place as a small JSON object.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from docuchat.corpus.types import PageBoxes, Place, PlaceSpan, Section, SheetCells, Slide

Box = tuple[float, float, float, float]  # x0, y0, x1, y1: fractions of the page, top-left origin

# A stored piece: its start in the document text, its length and its box in 1/65535ths.
_PIECE = np.dtype([("start", "<u4"), ("length", "<u2"), ("box", "<u2", (4,))])
_SCALE = 65535
_SAME_LINE = 0.5  # vertical overlap, of the smaller height, for two pieces to share a line


@dataclass(frozen=True, slots=True)
class PageRegion:
    """The boxes a span covers on one page, one per line it runs over."""

    page: int
    boxes: tuple[Box, ...]

    def label(self) -> str:
        return f"page {self.page}"


Location = PageRegion | Place


def quote_regions(pages: Iterable[PageBoxes], start: int, end: int) -> list[PageRegion]:
    """The boxes of the characters ``[start, end)``, per page in order (a quote that
    crosses a page break has one region per page), merged per line. A piece only
    partly inside is cut in proportion to its characters."""
    regions = []
    for page in pages:
        inside = np.flatnonzero((page.spans[:, 0] < end) & (page.spans[:, 1] > start))
        if not len(inside):
            continue
        boxes = [_clipped(page.spans[i], page.boxes[i], start, end) for i in inside]
        regions.append(PageRegion(page.page, tuple(_merge_lines(boxes))))
    return regions


def places_in(spans: Iterable[PlaceSpan], start: int, end: int) -> list[Place]:
    """The places the text ``[start, end)`` stands at, in order, each once; the cells of
    one sheet are joined into one range."""
    found: dict[object, Place] = {}
    for span in spans:
        if span.start >= end or span.end <= start:
            continue
        place = span.place
        key: object = ("sheet", place.sheet) if isinstance(place, SheetCells) else place
        previous = found.get(key)
        if isinstance(previous, SheetCells) and isinstance(place, SheetCells):
            place = previous.joined(place)
        found[key] = place
    return list(found.values())


def location_json(location: Location) -> dict[str, Any]:
    """The public form: ``{"page": 2, "boxes": [[x0, y0, x1, y1], ...]}``, ``{"slide": 4}``,
    ``{"sheet": "Budget", "cells": "A2:C2"}`` or ``{"section": "Introduction"}``."""
    if isinstance(location, PageRegion):
        return {"page": location.page, "boxes": [[round(v, 5) for v in b] for b in location.boxes]}
    return place_json(location)


def place_json(place: Place) -> dict[str, Any]:
    if isinstance(place, Slide):
        return {"slide": place.number}
    if isinstance(place, SheetCells):
        return {
            "sheet": place.sheet,
            "cells": place.cells,
            "rows": [place.first_row, place.last_row],
            "columns": [place.first_column, place.last_column],
        }
    return {"section": place.heading} | ({"instead_of_page": True} if place.instead_of_page else {})


def labels_page(place: Place) -> bool:
    """Whether the place names where to look better than a page number does."""
    return not isinstance(place, Section) or place.instead_of_page


def place_from_json(data: Mapping[str, Any]) -> Place:
    if "slide" in data:
        return Slide(int(data["slide"]))
    if "sheet" in data:
        (first_row, last_row), (first_column, last_column) = data["rows"], data["columns"]
        return SheetCells(str(data["sheet"]), first_row, last_row, first_column, last_column)
    return Section(str(data["section"]), bool(data.get("instead_of_page", False)))


def encode_boxes(page: PageBoxes) -> bytes:
    """A page's boxes as stored: 14 bytes a piece, compressed."""
    pieces = np.empty(len(page.spans), dtype=_PIECE)
    pieces["start"] = page.spans[:, 0]
    pieces["length"] = np.minimum(page.spans[:, 1] - page.spans[:, 0], 0xFFFF)
    pieces["box"] = np.rint(np.clip(page.boxes, 0.0, 1.0) * _SCALE)
    return zlib.compress(pieces.tobytes(), 6)


def decode_boxes(page: int, blob: bytes) -> PageBoxes:
    pieces = np.frombuffer(zlib.decompress(blob), dtype=_PIECE)
    starts = pieces["start"].astype(np.int64)
    spans = np.stack([starts, starts + pieces["length"]], axis=1)
    return PageBoxes(page, spans, (pieces["box"] / _SCALE).astype(np.float32))


def page_span(page: PageBoxes) -> tuple[int, int]:
    """The first and last offsets the page's pieces cover."""
    return int(page.spans[:, 0].min()), int(page.spans[:, 1].max())


def _clipped(span: Sequence[int], box: Sequence[float], start: int, end: int) -> Box:
    first, last = int(span[0]), int(span[1])
    x0, y0, x1, y1 = (float(v) for v in box)
    if first >= start and last <= end:
        return x0, y0, x1, y1
    width = (x1 - x0) / max(last - first, 1)
    return x0 + width * (max(start, first) - first), y0, x0 + width * (min(end, last) - first), y1


def _merge_lines(boxes: list[Box]) -> list[Box]:
    """Consecutive boxes of one line (overlapping vertically, left to right) as one."""
    merged: list[Box] = []
    for box in boxes:
        if merged and _same_line(merged[-1], box):
            x0, y0, x1, y1 = merged[-1]
            merged[-1] = (min(x0, box[0]), min(y0, box[1]), max(x1, box[2]), max(y1, box[3]))
        else:
            merged.append(box)
    return merged


def _same_line(line: Box, box: Box) -> bool:
    overlap = min(line[3], box[3]) - max(line[1], box[1])
    smaller = min(line[3] - line[1], box[3] - box[1])
    return box[0] >= line[0] and overlap > _SAME_LINE * max(smaller, 1e-6)
