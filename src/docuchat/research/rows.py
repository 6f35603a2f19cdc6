"""Table rows read with their header's names.

A spreadsheet row comes extracted under its header ("Item code | Unit price (GBP) | Lead
time (weeks)" above "SH-310 | 6,850 | 10"), a document table's row after its header row.
Read alone, "10" is no duration and "6,850" no amount; read with the header, each cell is
named and a bare number takes the unit its column names: "Unit price 6,850 GBP; Lead time
10 weeks". That reading is what the row states, for finding the kind of fact asked for and
the question's figures; the row is still quoted as written.
"""

from __future__ import annotations

import re

CELL_SEPARATOR = " | "
_UNIT = re.compile(r"^(?P<name>.*?)\s*\((?P<unit>[^()]+)\)$")
_BARE_NUMBER = re.compile(r"^-?\d[\d,]*(?:\.\d+)?$")
_CURRENCY = "£$€¥"


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.split(CELL_SEPARATOR)]


def is_row_of(header: str, row: str) -> bool:
    """Two lines of a table: the same number of cells (two or more), on one line each."""
    if "\n" in header or "\n" in row:
        return False
    width = len(cells(header))
    return width > 1 and len(cells(row)) == width


def header_and_row(text: str) -> tuple[str, str] | None:
    """A spreadsheet row as extracted, its header's line above its own; None otherwise."""
    lines = text.split("\n")
    if len(lines) == 2 and is_row_of(lines[0], lines[1]):
        return lines[0], lines[1]
    return None


def row_reading(header: str, row: str) -> str:
    """The row's cells named by the header's: "Lead time 10 weeks; Unit price £420k"."""
    said = []
    for name, value in zip(cells(header), cells(row), strict=True):
        if not value:
            continue
        unit = _UNIT.match(name)
        if unit and _BARE_NUMBER.match(value):
            name, measure = unit["name"], unit["unit"].strip()
            if measure[0] in _CURRENCY:  # "£k": "£420k"
                value = f"{measure[0]}{value}{measure[1:]}"
            elif measure[-1] in _CURRENCY:  # "NZ$": "NZ$68"
                value = f"{measure}{value}"
            else:
                value = f"{value} {measure}"
        said.append(f"{name} {value}")
    return "; ".join(said)
