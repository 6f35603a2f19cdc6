"""PDF parsing against real PDFs from many producers (tests/corpus/fixtures/real-pdfs)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from docuchat.corpus.parse import parse_bytes, parse_file
from docuchat.corpus.parsers._layout import located_words
from docuchat.corpus.parsers.pdf import _cleaned
from docuchat.corpus.types import ParsedDocument
from docuchat.errors import CorruptDocument, EmptyDocument, EncryptedDocument, UnsupportedFileType

REAL_PDFS = Path(__file__).parent / "fixtures" / "real-pdfs"
# Pages that are pictures only (ImageMagick and image test files): photos and drawings, no text
# even for OCR.
IMAGE_ONLY = {
    "cmyk-image.pdf",
    "grayscale-image.pdf",
    "imagemagick-ASCII85Decode.pdf",
    "imagemagick-CCITTFaxDecode.pdf",
    "imagemagick-lzw.pdf",
}
PASSWORD_PROTECTED = {"libreoffice-writer-password.pdf"}
ALL_PDFS = sorted(path.name for path in REAL_PDFS.glob("*.pdf"))


def _real(name: str) -> ParsedDocument:
    return parse_file(REAL_PDFS / name)


@pytest.fixture(scope="module")
def listed() -> dict[str, dict[str, Any]]:
    """``files.json`` entries (producer, pages, encrypted, ...) by file name."""
    entries = json.loads((REAL_PDFS / "files.json").read_text())["data"]
    return {Path(entry["path"]).name: entry for entry in entries}


def test_every_real_pdf_is_listed_in_files_json(listed: dict[str, dict[str, Any]]) -> None:
    assert len(ALL_PDFS) == 24
    assert set(ALL_PDFS) <= set(listed)
    encrypted = {name for name in ALL_PDFS if listed[name]["encrypted"]}
    assert encrypted == PASSWORD_PROTECTED


@pytest.mark.parametrize("name", sorted(set(ALL_PDFS) - IMAGE_ONLY - PASSWORD_PROTECTED))
def test_real_pdf_parses_with_the_listed_page_count(
    name: str,
    listed: dict[str, dict[str, Any]],
    assert_well_formed: Callable[[ParsedDocument], None],
) -> None:
    doc = _real(name)

    assert doc.page_count == listed[name]["pages"]
    assert doc.media_type == "application/pdf"
    assert_well_formed(doc)


@pytest.mark.parametrize("name", sorted(IMAGE_ONLY))
def test_image_only_pdf_is_an_empty_document_that_says_why(name: str) -> None:
    with pytest.raises(
        EmptyDocument, match=r"hold no text: no text layer, and OCR found none"
    ) as info:
        _real(name)
    assert info.value.path == str(REAL_PDFS / name)


def test_password_protected_pdf_says_so() -> None:
    with pytest.raises(EncryptedDocument, match="password-protected"):
        _real("libreoffice-writer-password.pdf")


def test_words_hyphenated_at_line_ends_are_joined() -> None:
    # The PDF prints "taki-" at the end of one line and "mata" on the next.
    assert "no sea takimata sanctus est" in _real("minimal-document.pdf").text


def test_ligatures_become_plain_letters() -> None:
    text = _real("crazyones-pdfa.pdf").text
    assert "The misfits." in text
    assert "ﬁ" not in text


def test_two_columns_are_read_one_after_the_other() -> None:
    text = _real("multicolumn.pdf").text
    assert "This is a sample document with two columns filled with Lorem Ipsum text." in text


def test_lines_of_a_paragraph_are_joined_and_paragraphs_kept_apart() -> None:
    doc = _real("crazyones-pdfa.pdf")
    blocks = [doc.text[block.start : block.end] for block in doc.blocks]
    assert blocks[:2] == ["The Crazy Ones", "October 14, 1998"]
    assert blocks[2] == (
        "Heres to the crazy ones. The misfits. The rebels. The troublemakers. "
        "The round pegs in the square holes."
    )


def test_blocks_carry_the_page_they_are_printed_on() -> None:
    doc = _real("pdflatex-outline.pdf")
    table_of_contents = doc.text[doc.blocks[0].start : doc.blocks[0].end]
    entries = re.findall(r"(\d \w+) (\d)", table_of_contents.removeprefix("Contents "))
    assert len(entries) == 9
    pages_by_heading = {doc.text[b.start : b.end]: b.page for b in doc.blocks}
    for heading, page in entries:
        assert pages_by_heading[heading] == int(page), heading


def test_empty_pages_count_but_hold_no_blocks() -> None:
    doc = _real("imagemagick-images.pdf")
    assert doc.page_count == 6
    assert [block.page for block in doc.blocks] == [1, 2, 3, 6]


def test_title_comes_from_metadata_else_the_opening_heading_else_the_file_name() -> None:
    assert _real("google-doc-document.pdf").title == "PDF Example Document"
    assert _real("crazyones-pdfa.pdf").title == "The Crazy Ones"
    assert _real("multicolumn.pdf").title == "Two-Column Document with Lorem Ipsum"
    assert _real("inline-image.pdf").title == "inline-image"  # metadata "untitled", text "Test"
    assert _real("pdflatex-4-pages.pdf").title == "pdflatex-4-pages"  # opens with a paragraph


def test_metadata_keeps_the_producer() -> None:
    assert _real("002-trivial-libre-office-writer.pdf").metadata == {
        "creator": "Writer",
        "producer": "LibreOffice 6.4",
    }


@pytest.mark.parametrize("keep", [0.25, 0.5, 0.9])
def test_truncated_pdf_is_corrupt(keep: float) -> None:
    data = (REAL_PDFS / "pdflatex-4-pages.pdf").read_bytes()
    with pytest.raises(CorruptDocument, match="damaged") as info:
        parse_bytes(data[: int(len(data) * keep)], "cut.pdf")
    assert info.value.path == "cut.pdf"


def test_pdf_header_followed_by_garbage_is_corrupt() -> None:
    with pytest.raises(CorruptDocument):
        parse_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 40, "garbage.pdf")


@pytest.mark.parametrize(
    "content",
    [b"<html><body>not a pdf</body></html>", b"PK\x03\x04 zip", b"plain words"],
)
def test_file_named_pdf_that_is_not_a_pdf_is_rejected(content: bytes) -> None:
    with pytest.raises(UnsupportedFileType, match="not a PDF"):
        parse_bytes(content, "report.pdf")


def test_junk_before_the_header_is_tolerated() -> None:
    data = (REAL_PDFS / "libre-office-link.pdf").read_bytes()
    assert parse_bytes(b"\r\n" * 8 + data, "x.pdf").text == "This is a link to an awesome blog."


def test_file_path_is_accepted_as_path_object(tmp_path: Path) -> None:
    target = tmp_path / "Copy.PDF"
    target.write_bytes((REAL_PDFS / "libre-office-link.pdf").read_bytes())
    assert parse_file(target).title == "Copy"


def test_words_that_normalise_to_several_or_none_are_spliced_in_place() -> None:
    # "\ufdfa" (one ligature glyph) is four Arabic words; a word of control characters is none.
    texts = ["Say", "\ufdfa", "x\x01y", "\x01", "end"]
    boxes = np.array([[0.1, 0.1, 0.2, 0.2], [0.3, 0.1, 0.7, 0.2], [0.1, 0.3, 0.2, 0.4],
                      [0.3, 0.3, 0.4, 0.4], [0.5, 0.3, 0.6, 0.4]])  # fmt: skip
    glued = np.array([False, True, False, False, True])
    line = np.array([0, 0, 1, 1, 1])

    words, where, joined, lines = _cleaned([1, 2, 3], list(texts), boxes, glued, line)

    ligature = located_words("\ufdfa", (0.3, 0.1, 0.7, 0.2), glued=True)
    assert len(ligature) == 4
    assert words == ["Say", *(word.text for word in ligature), "xy", "end"]
    assert where.tolist() == [
        [0.1, 0.1, 0.2, 0.2], *(list(word.box or ()) for word in ligature),
        [0.1, 0.3, 0.2, 0.4], [0.5, 0.3, 0.6, 0.4],
    ]  # fmt: skip
    assert joined.tolist() == [False, True, False, False, False, False, True]
    assert lines.tolist() == [0, 0, 0, 0, 0, 1, 1]
