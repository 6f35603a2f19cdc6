"""A table row read with its header's names: what the row states, for the kind of fact and
the figures a question asks for."""

from __future__ import annotations

from docuchat.research.kinds import find
from docuchat.research.questions import analyse
from docuchat.research.relevance import judge
from docuchat.research.rows import header_and_row, is_row_of, row_reading
from docuchat.research.sentences import Passage, sentences, stating


def test_a_bare_number_takes_the_unit_its_column_names() -> None:
    # A currency symbol goes in front, with the scale after; other units after the number;
    # a cell that is not a bare number is left as written.
    header = "Project | Budget (£k) | Lead time (weeks) | Rate (GBP) | Notes (GBP)"
    row = "WMS replacement | 1,150 | 10 | 720 | waived"
    assert row_reading(header, row) == (
        "Project WMS replacement; Budget £1,150k; Lead time 10 weeks; Rate 720 GBP;"
        " Notes (GBP) waived"
    )


def test_a_currency_named_by_a_column_makes_its_bare_numbers_amounts() -> None:
    # Whether the column names a code ("AUD") or a sign after a country's letters ("NZ$").
    header = "Plan | Price (AUD) | Setup (NZ$)"
    stated = row_reading(header, "Fleet | 68 | 250")
    assert stated == "Plan Fleet; Price 68 AUD; Setup NZ$250"
    assert find("money", stated) is not None


def test_a_sheet_row_is_its_header_line_above_its_own() -> None:
    assert header_and_row("Item | Price (GBP)\nShelf | 385") == (
        "Item | Price (GBP)",
        "Shelf | 385",
    )
    assert header_and_row("Item | Price\nShelf | 385 | extra") is None  # not the same cells
    assert header_and_row("A wrapped\nparagraph of text") is None
    assert not is_row_of("Item", "Shelf")  # one cell is no table


def test_a_document_table_row_states_its_cells_named_by_the_header_row() -> None:
    text = "Item | Lead time (weeks)\n\nShelving bay | 4\n\nChilled cabinet | 10"
    found = sentences([Passage(1, "c1", text, "Price schedule")])
    by_id = {s.id: s for s in found}
    cabinet = next(s for s in found if s.text == "Chilled cabinet | 10")
    assert stating(cabinet, by_id) == "Item Chilled cabinet; Lead time 10 weeks"
    assert find("duration", stating(cabinet, by_id)) is not None


def test_sheet_rows_stand_alone_and_their_header_line_is_their_heading() -> None:
    header = "Item | Size | Price (GBP)"
    text = "\n\n".join([header, f"{header}\nBay | 1.2 m | 385", f"{header}\nBay | 1.8 m | 462"])
    found = sentences([Passage(1, "c1", text, "Prices")])
    assert [s.text for s in found] == [
        f"{header}\nBay | 1.2 m | 385",
        f"{header}\nBay | 1.8 m | 462",
    ]
    first, second = found
    assert not first.items and not second.items  # no list of every row
    assert "1.8" not in "".join(first.numbers)
    assert "pric" in first.setting  # the stem of "Price"


def test_closeness_in_embedding_does_not_stand_in_for_a_sheet_row_s_missing_terms() -> None:
    # The row names the spotlight and states a duration (a warranty), no lead time: its
    # embedding, mostly its header's, is close to any question about the sheet.
    header = "Item code | Description | Unit price (GBP) | Warranty (years)"
    text = f"{header}\n\n{header}\nLT-20 | LED track spotlight | 74 | 5"
    [row] = sentences([Passage(1, "c1", text, "Price schedule")])
    asked = analyse("What is the delivery lead time for LED track spotlights?")
    reading = stating(row, {row.id: row})
    judged = judge(asked.parts[0], row, asked.text, reading, similarity=0.9)
    assert judged.found is not None and not judged.covered and not judged.addresses
    # A sentence of prose that close, with as few of the terms, still addresses it.
    [prose] = sentences([Passage(1, "c2", "LED track spotlights last 5 years.", "Lighting")])
    assert judge(asked.parts[0], prose, asked.text, similarity=0.9).covered
