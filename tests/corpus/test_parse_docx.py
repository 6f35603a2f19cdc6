"""DOCX parsing with real documents written by python-docx, and real zip bombs."""

from __future__ import annotations

import io
import os
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path

import docx
import pytest
from docx.enum.text import WD_BREAK
from docx.oxml import OxmlElement, parse_xml
from docx.oxml.ns import nsdecls

from docuchat.corpus.parse import parse_bytes
from docuchat.corpus.parsers import _zip as zip_guard
from docuchat.corpus.parsers import docx as docx_parser
from docuchat.corpus.types import ParsedDocument
from docuchat.errors import (
    ArchiveBomb,
    CorruptDocument,
    EmptyDocument,
    EncryptedDocument,
    UnsupportedFileType,
)

FIXTURES = Path(__file__).parent / "fixtures"
DOCUMENT_XML = "word/document.xml"


def _saved(document: docx.document.Document) -> bytes:
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _texts(doc: ParsedDocument) -> list[str]:
    return [doc.text[block.start : block.end] for block in doc.blocks]


def _pages(doc: ParsedDocument) -> list[int]:
    return [block.page for block in doc.blocks]


def _handbook() -> docx.document.Document:
    document = docx.Document()
    document.add_heading("Leave policy", level=1)
    document.add_paragraph("Everyone gets 27 days of paid leave per year.")
    table = document.add_table(rows=2, cols=2)
    for row, (key, value) in enumerate([("Grade", "Days"), ("Senior", "30")]):
        table.cell(row, 0).text = key
        table.cell(row, 1).text = value
    document.add_paragraph("Unused days expire on 31 March.")
    return document


def _with_entries(data: bytes, entries: dict[str, bytes]) -> bytes:
    """The archive with ``entries`` added or replaced, everything else kept."""
    buffer = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for item in source.infolist():
            if item.filename not in entries:
                target.writestr(item, source.read(item))
        for name, content in entries.items():
            target.writestr(name, content)
    return buffer.getvalue()


def test_paragraphs_headings_and_table_rows_come_in_order(
    assert_well_formed: Callable[[ParsedDocument], None],
) -> None:
    document = _handbook()
    document.core_properties.title = "Staff handbook"

    doc = parse_bytes(_saved(document), "handbook.docx")

    assert _texts(doc) == [
        "Leave policy",
        "Everyone gets 27 days of paid leave per year.",
        "Grade | Days",
        "Senior | 30",
        "Unused days expire on 31 March.",
    ]
    assert doc.title == "Staff handbook"
    assert doc.page_count == 1
    assert doc.media_type == docx_parser.MEDIA_TYPE
    assert_well_formed(doc)


def test_title_falls_back_to_the_first_heading_then_the_file_name() -> None:
    assert parse_bytes(_saved(_handbook()), "handbook.docx").title == "Leave policy"

    plain = docx.Document()
    plain.add_paragraph("No headings here.")
    assert parse_bytes(_saved(plain), "notes-2024.docx").title == "notes-2024"


def test_explicit_page_breaks_number_the_pages() -> None:
    document = docx.Document()
    document.add_paragraph("Page one.")
    document.add_paragraph().add_run().add_break(WD_BREAK.PAGE)
    run = document.add_paragraph("Still page two, ").add_run("and then")
    run.add_break(WD_BREAK.PAGE)
    run.add_text("page three.")

    doc = parse_bytes(_saved(document), "breaks.docx")

    assert _texts(doc) == ["Page one.", "Still page two, and then", "page three."]
    assert _pages(doc) == [1, 2, 3]
    assert doc.page_count == 3


def test_page_breaks_word_recorded_when_laying_out_take_precedence() -> None:
    document = docx.Document()
    document.add_paragraph("First page.").runs[0].add_break(WD_BREAK.PAGE)
    second = document.add_paragraph()
    second.add_run()._r.append(OxmlElement("w:lastRenderedPageBreak"))
    second.add_run("Second page.")
    long_paragraph = document.add_paragraph("Flows onto ")
    long_paragraph.add_run()._r.append(OxmlElement("w:lastRenderedPageBreak"))
    long_paragraph.add_run("the third page.")

    doc = parse_bytes(_saved(document), "rendered.docx")

    # The explicit break and the rendered break after it are one page break, not two.
    assert _texts(doc) == ["First page.", "Second page.", "Flows onto", "the third page."]
    assert _pages(doc) == [1, 2, 2, 3]
    assert doc.page_count == 3


def test_run_contents_become_text_but_deleted_text_and_fallbacks_do_not() -> None:
    document = docx.Document()
    document.add_paragraph()._p.append(
        parse_xml(
            f"""<w:r {nsdecls("w")}><w:t>Pay</w:t><w:tab/><w:t>day</w:t><w:br/>
            <w:t>self</w:t><w:noBreakHyphen/><w:t>service</w:t></w:r>"""
        )
    )
    tracked = document.add_paragraph("Leave is ")
    tracked._p.append(
        parse_xml(f"<w:del {nsdecls('w')}><w:r><w:delText>25</w:delText></w:r></w:del>")
    )
    tracked._p.append(parse_xml(f"<w:ins {nsdecls('w')}><w:r><w:t>27</w:t></w:r></w:ins>"))
    tracked.add_run(" days.")
    document.add_paragraph()._p.append(
        parse_xml(
            f"""<w:r {nsdecls("w")}
                xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">
              <mc:AlternateContent>
                <mc:Choice Requires="wps"><w:t>Text box</w:t></mc:Choice>
                <mc:Fallback><w:t>Text box</w:t></mc:Fallback>
              </mc:AlternateContent></w:r>"""
        )
    )

    doc = parse_bytes(_saved(document), "runs.docx")

    assert _texts(doc) == ["Pay\tday\nself-service", "Leave is 27 days.", "Text box"]


def test_password_protected_docx_says_so() -> None:
    data = (FIXTURES / "password-protected.docx").read_bytes()
    with pytest.raises(EncryptedDocument, match="password-protected") as info:
        parse_bytes(data, "secret.docx")
    assert info.value.path == "secret.docx"


def test_zip_bomb_is_refused_before_decompressing() -> None:
    bomb = _with_entries(_saved(_handbook()), {"word/media/padding.bin": bytes(20 * 2**20)})
    assert len(bomb) < 100_000  # 20 MiB of zeros compress about 1000:1

    with pytest.raises(ArchiveBomb, match="more than 100:1"):
        parse_bytes(bomb, "bomb.docx")


def test_long_repetitive_document_is_not_mistaken_for_a_bomb() -> None:
    body = b"<w:p><w:r><w:t>Same line.</w:t></w:r></w:p>" * 12_000
    xml = f"<w:document {nsdecls('w')}><w:body>".encode() + body + b"</w:body></w:document>"
    data = _with_entries(_saved(_handbook()), {DOCUMENT_XML: xml})
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        entry = archive.getinfo(DOCUMENT_XML)
    assert entry.file_size > 100 * entry.compress_size  # over the ratio, but small

    assert len(parse_bytes(data, "long.docx").blocks) == 12_000


def test_archive_expanding_beyond_the_total_limit_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(zip_guard, "MAX_EXPANDED_BYTES", 2**20)
    big = _with_entries(_saved(_handbook()), {"word/media/photo.bin": os.urandom(2**20)})

    with pytest.raises(ArchiveBomb, match="would expand to"):
        parse_bytes(big, "big.docx")


def test_entry_that_lies_about_its_size_is_not_decompressed_past_it() -> None:
    data = bytearray(_with_entries(_saved(_handbook()), {DOCUMENT_XML: b"<x/>" * 500_000}))
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        entry = archive.getinfo(DOCUMENT_XML)
    struct.pack_into("<I", data, entry.header_offset + 22, 1000)  # size in the local header
    central = data.index(b"PK\x01\x02")
    while not data.startswith(DOCUMENT_XML.encode(), central + 46):
        central = data.index(b"PK\x01\x02", central + 4)
    struct.pack_into("<I", data, central + 24, 1000)  # size in the central directory

    with pytest.raises(CorruptDocument, match="damaged"):
        parse_bytes(bytes(data), "liar.docx")


def test_xml_with_a_doctype_is_refused() -> None:
    laughs = (
        b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><w:document/>'
    )
    with pytest.raises(CorruptDocument, match="DOCTYPE"):
        parse_bytes(_with_entries(_saved(_handbook()), {DOCUMENT_XML: laughs}), "x.docx")


def test_malformed_xml_is_corrupt() -> None:
    broken = _with_entries(_saved(_handbook()), {DOCUMENT_XML: b"<w:document><w:body>"})
    with pytest.raises(CorruptDocument, match="malformed XML"):
        parse_bytes(broken, "x.docx")


def test_truncated_docx_is_corrupt() -> None:
    data = _saved(_handbook())
    with pytest.raises(CorruptDocument, match="damaged"):
        parse_bytes(data[: len(data) // 2], "cut.docx")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"Just some words in a renamed text file.", "not a zip"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600), "legacy Word .doc"),
    ],
)
def test_content_that_is_not_a_docx_is_rejected(content: bytes, message: str) -> None:
    with pytest.raises(UnsupportedFileType, match=message):
        parse_bytes(content, "file.docx")


def test_zip_without_a_word_document_is_rejected() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("readme.txt", "hello")
    with pytest.raises(UnsupportedFileType, match="without a Word document"):
        parse_bytes(buffer.getvalue(), "archive.docx")


def test_docx_without_text_is_empty() -> None:
    document = docx.Document()
    document.add_paragraph("   ")
    with pytest.raises(EmptyDocument):
        parse_bytes(_saved(document), "blank.docx")
