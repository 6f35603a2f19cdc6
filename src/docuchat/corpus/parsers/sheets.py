"""Spreadsheets: XLSX through openpyxl, CSV through the stdlib ``csv`` module.

openpyxl is the maintained reader of the format; its read-only mode streams rows
without loading the workbook into memory, and values come as saved (formulas give
the result Excel cached). The zip is checked against decompression bombs first.

Each sheet is one page and a table: its header is the first row of two or more
cells, all text (a title, blank rows and notes above it are the sheet's preamble,
each line kept once on its own); without one (a single column), the first non-empty
row is the header when it is text. Every row below the header is a block of two
lines, the header and the row, cells joined by `` | `` ("Department |
Budget\\nFacilities | 184,000"), so a row never loses what its columns mean,
however the text is cut into chunks. A block's place is the sheet and the row's
cells ("Budget 2026!A2:C2"). A number is written as its cell's number format shows it
("15%", "$1,234.50", "2026" for "0"); in the General format with thousands separators from
five digits on, as style guides write numbers ("184,000", but a year "2026" and "6850"). A
CSV's cells are text and stay as written.
"""

from __future__ import annotations

import csv
import datetime
import io
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from docuchat.corpus.parsers._decode import decode_text
from docuchat.corpus.parsers._document import DocumentBuilder, pick_title
from docuchat.corpus.parsers._zip import check_package
from docuchat.corpus.parsers.number_formats import GENERAL, shown
from docuchat.corpus.types import ParsedDocument, SheetCells
from docuchat.errors import CorruptDocument, ParseLimitExceeded

XLSX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
CSV_MEDIA_TYPE = "text/csv"
MAX_SHEETS = 500
MAX_CELLS = 2_000_000  # cells visited, empty ones included, in all sheets
MAX_CELL_CHARS = 32_767  # Excel's own limit per cell
MAX_PREAMBLE_ROWS = 20  # rows above the header (title, notes) looked through for it
_SEPARATOR = " | "
_GROUPED_FROM = 10_000  # a General number's thousands are grouped from five digits on


def parse_xlsx(data: bytes, stem: str) -> ParsedDocument:
    check_package(
        data,
        "XLSX",
        "xl/workbook.xml",
        not_it="the content is not an XLSX (a zip without a workbook)",
    )
    import openpyxl  # 0.4 s to import: only when a workbook comes

    try:
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (KeyError, ValueError, TypeError, OSError) as exc:
        raise CorruptDocument(f"the XLSX cannot be read ({exc})") from exc
    try:
        sheets = workbook.worksheets
        if len(sheets) > MAX_SHEETS:
            raise ParseLimitExceeded(f"the XLSX has {len(sheets):,} sheets (limit {MAX_SHEETS})")
        budget = _Budget()
        builder = DocumentBuilder()
        for number, sheet in enumerate(sheets, start=1):
            rows = (budget.spent([_Cell.of(c) for c in row]) for row in sheet.iter_rows())
            _add_table(builder, sheet.title, number, rows)
        title = pick_title(workbook.properties.title, fallback=stem)
    except (KeyError, ValueError, TypeError) as exc:
        raise CorruptDocument(f"the XLSX cannot be read ({exc})") from exc
    finally:
        workbook.close()
    return builder.build(
        title=title,
        page_count=max(len(sheets), 1),
        media_type=XLSX_MEDIA_TYPE,
        metadata={"sheets": [sheet.title for sheet in sheets]},
        empty_reason="the workbook's sheets hold no values",
    )


def parse_csv(data: bytes, stem: str) -> ParsedDocument:
    text, encoding = decode_text(data)
    try:
        dialect: Any = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    budget = _Budget()
    builder = DocumentBuilder()
    try:
        rows = (
            budget.spent([_Cell(v) for v in row]) for row in csv.reader(io.StringIO(text), dialect)
        )
        _add_table(builder, stem, 1, rows)
    except csv.Error as exc:
        raise CorruptDocument(f"the CSV cannot be read ({exc})") from exc
    return builder.build(
        title=stem,
        page_count=1,
        media_type=CSV_MEDIA_TYPE,
        metadata={"encoding": encoding},
        empty_reason="the CSV holds no values",
    )


class _Budget:
    cells = 0

    def spent(self, row: list[_Cell]) -> list[_Cell]:
        self.cells += len(row)
        if self.cells > MAX_CELLS:
            raise ParseLimitExceeded(f"the sheets hold more than {MAX_CELLS:,} cells")
        return row


def _add_table(
    builder: DocumentBuilder, sheet: str, page: int, rows: Iterable[Sequence[_Cell]]
) -> None:
    header: str | None = None
    above: list[_Line] | None = []  # the rows read while the header is not known yet
    for line in _lines(sheet, rows):
        if above is None:
            builder.add(f"{header}\n{line.text}" if header else line.text, page, place=line.place)
            continue
        above.append(line)
        if line.is_header or len(above) > MAX_PREAMBLE_ROWS:
            header = _start_table(builder, page, above)
            above = None
    if above:
        _start_table(builder, page, above)


def _start_table(builder: DocumentBuilder, page: int, above: list[_Line]) -> str | None:
    """Add the rows read so far (preamble, header, the first rows) and give the header.

    The header is the first row of two or more text cells; the lines above it (a title,
    notes) are the sheet's preamble, each once on its own. Without such a row (one column,
    or none within ``MAX_PREAMBLE_ROWS``), the first row is the header when it is all text.
    """
    at = next((i for i, line in enumerate(above) if line.is_header), None)
    if at is None:
        at = 0 if above[0].is_label_row else len(above)
    header = above[at].text if at < len(above) else None
    for index, line in enumerate(above):
        under = header is not None and index > at
        builder.add(f"{header}\n{line.text}" if under else line.text, page, place=line.place)
    return header


@dataclass(frozen=True)
class _Line:
    """A non-empty row: its cells joined, where they are, and whether it reads as a header."""

    text: str
    place: SheetCells
    is_label_row: bool  # every filled cell is text
    is_header: bool  # and there are at least two of them


@dataclass(frozen=True)
class _Cell:
    """A cell's value and the number format it is shown in (a CSV's: General)."""

    value: Any
    number_format: str = GENERAL

    @classmethod
    def of(cls, cell: Any) -> _Cell:
        return cls(cell.value, getattr(cell, "number_format", None) or GENERAL)


def _lines(sheet: str, rows: Iterable[Sequence[_Cell]]) -> Iterator[_Line]:
    for number, row in enumerate(rows, start=1):
        cells = [_cell_text(c.value, c.number_format) for c in row]
        filled = [index for index, cell in enumerate(cells, start=1) if cell]
        if not filled:
            continue
        first, last = filled[0], filled[-1]
        labels = all(_is_label(row[i - 1].value) for i in filled)
        yield _Line(
            _SEPARATOR.join(cells[first - 1 : last]),
            SheetCells(sheet, number, number, first, last),
            is_label_row=labels,
            is_header=labels and len(filled) >= 2,
        )


def _is_label(value: Any) -> bool:
    return isinstance(value, str) and not value.strip().replace(",", "").replace(".", "").isdigit()


def _cell_text(value: Any, number_format: str) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        formatted = shown(value, number_format)
        if formatted is not None:
            return formatted
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= _GROUPED_FROM else str(value)
    if isinstance(value, float):
        return f"{value:,.15g}" if abs(value) >= _GROUPED_FROM else f"{value:.15g}"
    if isinstance(value, datetime.datetime) and value.time() == datetime.time():
        return value.date().isoformat()
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    text = " ".join(str(value)[:MAX_CELL_CHARS].split())
    return text.replace(" | ", " / ")
