"""The shipped sample documents parse, and hold (or lack) what questions.md says."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from docuchat.corpus.parse import SUPPORTED_SUFFIXES, parse_file
from docuchat.corpus.types import ParsedDocument

SAMPLES = Path(__file__).parents[2] / "samples" / "documents"

# (file, title, pages)
DOCUMENTS = [
    ("employee-handbook.pdf", "Larkspur Analytics Employee Handbook", 2),
    ("travel-and-expenses.md", "Travel and Expenses Policy", 1),
    ("it-security.html", "IT and Security Guidelines", 1),
    ("benefits-summary.docx", "Benefits Summary 2025", 1),
]
# The answers in questions.md: (file, page, passage the answer quotes).
ANSWERS = [
    ("employee-handbook.pdf", 1, "Full-time employees get 27 days of paid annual leave per year"),
    ("travel-and-expenses.md", 1, "London | £160"),
    ("it-security.html", 1, "report it within one hour to security@larkspur.example"),
    ("benefits-summary.docx", 1, "Larkspur pays 6% of salary when you contribute at least 4%."),
    ("employee-handbook.pdf", 2, "16 weeks of leave on full pay"),
]
UNANSWERED = ["dental", "salary range", "pay band"]


def _parsed(name: str) -> ParsedDocument:
    return parse_file(SAMPLES / name)


def test_the_folder_holds_exactly_the_listed_documents() -> None:
    found = {path.name for path in SAMPLES.iterdir() if path.suffix in SUPPORTED_SUFFIXES}
    assert found == {name for name, _, _ in DOCUMENTS}


@pytest.mark.parametrize(("name", "title", "pages"), DOCUMENTS)
def test_each_sample_parses_with_its_title_and_pages(
    name: str, title: str, pages: int, assert_well_formed: Callable[[ParsedDocument], None]
) -> None:
    doc = _parsed(name)
    assert (doc.title, doc.page_count) == (title, pages)
    assert_well_formed(doc)


@pytest.mark.parametrize(("name", "page", "passage"), ANSWERS)
def test_answerable_questions_have_their_passage_on_the_right_page(
    name: str, page: int, passage: str
) -> None:
    doc = _parsed(name)
    start = doc.text.index(passage)
    block = next(b for b in doc.blocks if b.start <= start < b.end)
    assert block.page == page


def test_unanswerable_questions_find_nothing() -> None:
    text = " ".join(_parsed(name).text.lower() for name, _, _ in DOCUMENTS)
    assert not [term for term in UNANSWERED if term in text]
