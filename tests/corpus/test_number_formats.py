"""A number as its cell's number format shows it, and None (the plain rendering) for
General and for formats the reader does not understand, so a number is never misread."""

from __future__ import annotations

import pytest

from docuchat.corpus.parsers.number_formats import shown

ACCOUNTING = '_-* #,##0.00_-;-* #,##0.00_-;_-* "-"??_-;_-@_-'


@pytest.mark.parametrize(
    ("value", "number_format", "text"),
    [
        (0.15, "0%", "15%"),
        (0.125, "0.0%", "12.5%"),
        (1234.5, '"$"#,##0.00', "$1,234.50"),
        (1500, "[$S$-4809]#,##0.00", "S$1,500.00"),
        (99.9, "[$€-407] #,##0.00", "€ 99.90"),
        (1500, "\\£#,##0", "£1,500"),
        (2026, "0", "2026"),
        (2.5, "0", "3"),  # half away from zero, as spreadsheets round
        (0.285, "0.00", "0.29"),
        (-1200, "#,##0;(#,##0)", "(1,200)"),
        (-1200, "#,##0", "-1,200"),
        (1234567, "#,##0,", "1,235"),  # a trailing comma shows thousands
        (12, '0 "days"', "12 days"),
        (1500, "[Red]#,##0", "1,500"),
        (1234.5, "#,##0.0#", "1,234.5"),
        (1234, "#,##0.0#", "1,234.0"),
        (1234, "#,##0.##", "1,234"),
        (0.5, "#.00", ".50"),
        (1200, ACCOUNTING, "1,200.00"),
        (0, ACCOUNTING, "-"),
    ],
)
def test_a_number_reads_as_its_format_shows_it(value: float, number_format: str, text: str) -> None:
    assert shown(value, number_format) == text


@pytest.mark.parametrize(
    "number_format",
    ["General", "", "@", "# ?/?", "0.00E+00", "d/m/yyyy", '"Total"', "[>=10]0;0.0"],
)
def test_general_and_formats_not_read_leave_the_number_to_its_plain_rendering(
    number_format: str,
) -> None:
    assert shown(0.5, number_format) is None
