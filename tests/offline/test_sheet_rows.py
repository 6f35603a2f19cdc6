"""A spreadsheet's rows come extracted each under its header's line: the offline model reads
each row as one sentence that names its cells by the header (a bare number takes its
column's unit), apart from the other rows, and never quotes the header line alone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openpyxl
import pytest

from docuchat.corpus.ingest import ingest_paths
from docuchat.research.offline import PREFIX
from docuchat.store import Store, open_store

from .conftest import OWNER, Ask
from .test_answering import quotes

SHELVING = [
    ("Item code", "Description", "Unit price (GBP)", "Lead time (weeks)"),
    ("SH-100", "Gondola shelving bay, 1.2 m", 385, 4),
    ("SH-110", "Gondola shelving bay, 1.8 m", 462, 4),
    ("SH-310", "Chilled display cabinet", 6850, 10),
]
TERMS = [("Term", "Value"), ("Payment terms", "30 days from the invoice date")]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    workbook = openpyxl.Workbook()
    workbook.active.title = "Shelving"
    for row in SHELVING:
        workbook.active.append(row)
    terms = workbook.create_sheet("Terms")
    for row in TERMS:
        terms.append(row)
    folder = tmp_path / "docs"
    folder.mkdir()
    workbook.save(folder / "halden-price-schedule.xlsx")
    db = open_store(tmp_path / "docuchat.db")
    assert len(ingest_paths(db, OWNER, [folder]).ingested) == 1
    yield db
    db.close()


def test_a_number_takes_the_unit_of_its_column(ask: Ask) -> None:
    # "10" alone is no duration; under "Lead time (weeks)" it is ten weeks.
    answer = ask("What's the lead time for a chilled display cabinet?")
    assert answer.answer.startswith(PREFIX)
    assert "SH-310 | Chilled display cabinet | 6850 | 10" in quotes(answer)[0]
    assert answer.presentation == "answer"


def test_a_row_is_not_answered_by_the_figures_of_another_row(ask: Ask) -> None:
    answer = ask("How much is a 1.8 m gondola shelving bay?")
    assert "SH-110 | Gondola shelving bay, 1.8 m | 462 | 4" in quotes(answer)[0]
    assert "SH-100" not in answer.answer


def test_the_header_line_above_the_first_row_is_never_quoted_alone(ask: Ask) -> None:
    answer = ask("What are the payment terms?")
    # One quote: the row under its header, not the header line of its sheet after it.
    [row] = quotes(answer)
    assert row.startswith("Term | Value\nPayment terms | 30 days from the invoice date")
