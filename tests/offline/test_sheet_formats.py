"""A workbook's numbers read as their cells show them: a discount formatted as a percentage
is "15%", not the 0.15 it is stored as; a year formatted "0" is 2026, not "2,026". Before,
every number was written as stored, with thousands separators, so the answer quoted "0.15"
for a discount and the year as "2,026"."""

from __future__ import annotations

import io
from collections.abc import Callable

import openpyxl
import pytest

from docuchat.research.offline import ABSTAIN
from docuchat.search.hybrid import HybridSearcher

from .conftest import OWNER, Ask


def _price_list() -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Plans"
    sheet.append(["Plan", "Price per user per month", "Volume discount", "Price review year"])
    sheet.append(["Fleet", 62, 0.15, 2027])
    sheet.append(["Crew", 38, 0.1, 2028])
    for row in sheet.iter_rows(min_row=2):
        row[1].number_format = '"$"#,##0.00'
        row[2].number_format = "0%"
    sheet["D3"].number_format = "0"  # Fleet's year stays General
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


@pytest.fixture
def documents() -> dict[str, str | bytes]:
    return {"plans.xlsx": _price_list()}


@pytest.mark.parametrize(
    ("question", "shown", "stored"),
    [
        ("What volume discount does the Fleet plan get?", "15%", "0.15"),
        ("What is the Fleet plan's price per user per month?", "$62.00", "62 |"),
        ("In which year is the Crew plan's price reviewed?", "2028", "2,028"),
    ],
)
def test_a_sheet_s_number_is_quoted_as_its_cell_format_shows_it(
    ask: Ask, question: str, shown: str, stored: str
) -> None:
    answer = ask(question)
    assert answer.answer != ABSTAIN and shown in answer.answer
    assert stored not in answer.answer
    assert all(shown in c.quote for c in answer.citations[:1])


def test_a_general_year_reads_and_is_found_as_written(
    searcher: HybridSearcher, document_text: Callable[[str], str]
) -> None:
    """An unformatted 2027 in a sheet is "2027", not "2,027" (which a search for 2027 would
    not find: the index splits it at the comma)."""
    [best, *_] = searcher.search(OWNER, "2027", k=3)
    assert "2027" in best.snippet.text
    assert "Fleet | $62.00 | 15% | 2027" in document_text(best.doc_id)
