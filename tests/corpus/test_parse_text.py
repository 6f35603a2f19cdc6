"""Plain text: encodings, paragraphs, form-feed pages, binary content refused."""

from __future__ import annotations

import codecs
from collections.abc import Callable

import pytest

from docuchat.corpus.parse import parse_bytes
from docuchat.corpus.types import ParsedDocument
from docuchat.errors import EmptyDocument, UnsupportedFileType

MINUTES = (
    "Board minutes\r\n\r\nPresent: Ana, Bo, Chen.  \r\nQuorum reached.\r\n\r\n\r\n\r\n"
    "Next meeting: 4 June."
)


def _texts(doc: ParsedDocument) -> list[str]:
    return [doc.text[block.start : block.end] for block in doc.blocks]


def test_paragraphs_are_separated_by_blank_lines(
    assert_well_formed: Callable[[ParsedDocument], None],
) -> None:
    doc = parse_bytes(MINUTES.encode(), "minutes.txt")

    assert _texts(doc) == [
        "Board minutes",
        "Present: Ana, Bo, Chen.\nQuorum reached.",
        "Next meeting: 4 June.",
    ]
    assert doc.title == "minutes"
    assert doc.media_type == "text/plain"
    assert doc.metadata == {"encoding": "utf-8"}
    assert_well_formed(doc)


def test_form_feeds_separate_pages() -> None:
    doc = parse_bytes(b"Page one.\fPage two.\n\nStill two.\f\fPage four.\f", "report.txt")

    assert _texts(doc) == ["Page one.", "Page two.", "Still two.", "Page four."]
    assert [block.page for block in doc.blocks] == [1, 2, 2, 4]
    assert doc.page_count == 4  # the final form feed ends page four, it opens no fifth


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (codecs.BOM_UTF8 + "Crème brûlée".encode(), "utf-8-sig"),
        (codecs.BOM_UTF16_LE + "Crème brûlée".encode("utf-16-le"), "utf-16"),
        (codecs.BOM_UTF16_BE + "Crème brûlée".encode("utf-16-be"), "utf-16"),
    ],
)
def test_byte_order_marks_pick_the_encoding_and_are_not_text(data: bytes, encoding: str) -> None:
    doc = parse_bytes(data, "dessert.txt")
    assert doc.text == "Crème brûlée"
    assert doc.metadata == {"encoding": encoding}


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        ("Le café est fermé le dimanche. Réouverture lundi à 8 h, première commande.", "cp1252"),
        ("Привет, как дела? Сегодня хорошая погода, пойдём гулять в парк.", "cp1251"),
        ("Zażółć gęślą jaźń, to jest polski tekst o żółwiu.", "cp1250"),
    ],
)
def test_text_that_is_not_utf8_falls_back_to_a_detected_encoding(text: str, encoding: str) -> None:
    doc = parse_bytes(text.encode(encoding), "legacy.txt")
    assert doc.text == text
    assert doc.metadata == {"encoding": encoding}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "is a PDF"),
        (b"PK\x03\x04\x14\x00\x06\x00", "ZIP archive"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "JPEG image"),
        (b"text then \x00\x00\x00 binary", "NUL bytes"),
        (b"\x01\x02\x03\x04\x05\x06 mostly control characters \x07\x08\x0e\x0f", "control"),
    ],
)
def test_binary_content_posing_as_text_is_rejected(data: bytes, message: str) -> None:
    with pytest.raises(UnsupportedFileType, match=message):
        parse_bytes(data, "notes.txt")


def test_text_of_only_form_feeds_and_blank_lines_is_empty() -> None:
    with pytest.raises(EmptyDocument):
        parse_bytes(b"\f\n\n\f", "blank.txt")
