"""Slides, sheets, e-books, e-mail and pictures: real files made here with the format's own
writers (python-pptx, openpyxl, the zip and email packages, Pillow), and bad ones."""

from __future__ import annotations

import io
import zipfile
import zlib
from email.message import EmailMessage
from pathlib import Path

import openpyxl
import pytest
from pptx import Presentation
from pptx.util import Inches

from docuchat.corpus.locations import places_in
from docuchat.corpus.parse import parse_bytes
from docuchat.corpus.parsers import _zip as zip_guard
from docuchat.corpus.parsers import sheets
from docuchat.corpus.types import ParsedDocument, Section, SheetCells, Slide
from docuchat.errors import (
    ArchiveBomb,
    CorruptDocument,
    EncryptedDocument,
    ParseLimitExceeded,
    UnsupportedFileType,
)

from .scans import degrade, render

REAL_PDFS = Path(__file__).parent / "fixtures" / "real-pdfs"


def _blocks(doc: ParsedDocument) -> list[str]:
    return [doc.text[b.start : b.end] for b in doc.blocks]


def _place_of(doc: ParsedDocument, phrase: str) -> object:
    start = doc.text.index(phrase)
    return next(b.place for b in doc.blocks if b.start <= start < b.end)


# -- PPTX --------------------------------------------------------------------------------


def _deck() -> bytes:
    deck = Presentation()
    title_slide = deck.slides.add_slide(deck.slide_layouts[0])
    title_slide.shapes.title.text = "Quarterly Review"
    title_slide.placeholders[1].text = "Larkspur Analytics, Q3"
    content = deck.slides.add_slide(deck.slide_layouts[5])  # title only
    content.shapes.title.text = "Budget by department"
    table = content.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for row, cells in enumerate([("Department", "Budget"), ("Facilities", "184,000"),
                                 ("Research", "410,000")]):  # fmt: skip
        for column, text in enumerate(cells):
            table.cell(row, column).text = text
    content.notes_slide.notes_text_frame.text = "Facilities grew because of the new lab."
    box = content.shapes.add_textbox(Inches(1), Inches(5), Inches(4), Inches(1))
    box.text_frame.text = "Figures in euros."
    deck.core_properties.title = "Q3 Review"
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def test_pptx_gives_slide_text_tables_and_notes_each_at_its_slide(
    assert_well_formed: object,
) -> None:
    doc = parse_bytes(_deck(), "review.pptx")
    assert doc.title == "Q3 Review" and doc.page_count == 2
    assert _blocks(doc) == [
        "Quarterly Review",
        "Larkspur Analytics, Q3",
        "Budget by department",
        "Department | Budget",
        "Facilities | 184,000",
        "Research | 410,000",
        "Figures in euros.",
        "Notes: Facilities grew because of the new lab.",
    ]
    assert _place_of(doc, "Facilities | 184,000") == Slide(2)
    assert _place_of(doc, "Larkspur") == Slide(1)
    assert [b.page for b in doc.blocks] == [1, 1, 2, 2, 2, 2, 2, 2]


# -- XLSX and CSV ------------------------------------------------------------------------


def _workbook() -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Budget 2026"
    sheet.append(["Department", "Owner", "Budget"])
    sheet.append(["Facilities", "Dana Reyes", 184000])
    sheet.append(["Research", "Omar Haddad", 410000.5])
    sheet.append([])
    sheet.append([None, "Total", "=SUM(C2:C3)"])
    other = book.create_sheet("Notes")
    other["B2"] = "Approved by the board"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_xlsx_rows_keep_their_header_and_their_cells() -> None:
    doc = parse_bytes(_workbook(), "budget.xlsx")
    assert doc.page_count == 2 and doc.metadata["sheets"] == ["Budget 2026", "Notes"]
    blocks = _blocks(doc)
    assert blocks[:3] == [
        "Department | Owner | Budget",
        "Department | Owner | Budget\nFacilities | Dana Reyes | 184,000",
        "Department | Owner | Budget\nResearch | Omar Haddad | 410,000.5",
    ]
    assert "Facilities | Dana Reyes | 184,000" in doc.text
    place = _place_of(doc, "Facilities | Dana")
    assert place == SheetCells("Budget 2026", 2, 2, 1, 3)
    assert isinstance(place, SheetCells) and place.label() == "Budget 2026!A2:C2"
    assert _place_of(doc, "Approved") == SheetCells("Notes", 2, 2, 2, 2)


def _sheet_of(*rows: list[object], merge: str | None = None) -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Plans"
    for row in rows:
        sheet.append(row)
    if merge:
        sheet.merge_cells(merge)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


_TITLE = "Price list 2026-27 (AUD, excluding GST)"


def test_a_title_row_above_the_header_is_said_once_and_not_taken_for_the_header() -> None:
    data = _sheet_of(
        [_TITLE],
        ["Plan", "Price per user (AUD)", "Term"],
        ["Crew", 45, "12 months"],
        merge="A1:C1",
    )
    doc = parse_bytes(data, "prices.xlsx")
    assert _blocks(doc) == [
        _TITLE,
        "Plan | Price per user (AUD) | Term",
        "Plan | Price per user (AUD) | Term\nCrew | 45 | 12 months",
    ]
    assert _place_of(doc, _TITLE) == SheetCells("Plans", 1, 1, 1, 1)
    place = _place_of(doc, "Crew")
    assert isinstance(place, SheetCells) and place.label() == "Plans!A3:C3"


def test_a_title_blank_rows_and_notes_are_the_sheet_s_preamble_above_its_table() -> None:
    data = _sheet_of(
        [_TITLE],
        [],
        ["Prices are per user per month.", None, None],
        [None, "Note: 2026-27 prices apply from 1 July 2026."],
        [],
        [None, "Plan", "Price per user (AUD)", "Users"],
        [None, "Starter", 32, "1 to 10"],
        [None, "Crew", 49, "up to 150"],
    )
    doc = parse_bytes(data, "prices.xlsx")
    header = "Plan | Price per user (AUD) | Users"
    assert _blocks(doc) == [
        _TITLE,
        "Prices are per user per month.",
        "Note: 2026-27 prices apply from 1 July 2026.",
        header,
        f"{header}\nStarter | 32 | 1 to 10",
        f"{header}\nCrew | 49 | up to 150",
    ]
    assert doc.text.count(_TITLE) == 1
    assert _place_of(doc, "Note: 2026") == SheetCells("Plans", 4, 4, 2, 2)
    assert _place_of(doc, "Starter") == SheetCells("Plans", 7, 7, 2, 4)
    assert _place_of(doc, "Crew") == SheetCells("Plans", 8, 8, 2, 4)


def test_a_sheet_of_one_column_or_all_text_keeps_its_first_row_as_header() -> None:
    one_column = parse_bytes(_sheet_of(["Staff"], ["Dana Reyes"], ["Omar Haddad"]), "s.xlsx")
    assert _blocks(one_column) == ["Staff", "Staff\nDana Reyes", "Staff\nOmar Haddad"]
    all_text = parse_bytes(
        _sheet_of(["Term", "Detail"], ["Currency", "Australian dollars"]), "t.xlsx"
    )
    assert _blocks(all_text) == ["Term | Detail", "Term | Detail\nCurrency | Australian dollars"]
    assert _place_of(all_text, "Currency") == SheetCells("Plans", 2, 2, 1, 2)


def test_a_long_sheet_without_a_header_says_each_row_once() -> None:
    rows = [[n * 10] for n in range(sheets.MAX_PREAMBLE_ROWS + 5)]
    doc = parse_bytes(_sheet_of(*rows), "numbers.xlsx")
    assert _blocks(doc) == [str(n * 10) for n in range(sheets.MAX_PREAMBLE_ROWS + 5)]
    with_header = parse_bytes(_sheet_of(["Reading"], *rows), "readings.xlsx")
    assert _blocks(with_header)[1:3] == ["Reading\n0", "Reading\n10"]
    assert len(with_header.blocks) == len(rows) + 1


def test_a_csv_with_a_title_line_reads_its_header_below_it() -> None:
    data = b"Budget 2026\nDepartment,Budget\nFacilities,184000\n"
    doc = parse_bytes(data, "budget.csv")
    assert _blocks(doc) == [
        "Budget 2026",
        "Department | Budget",
        "Department | Budget\nFacilities | 184000",
    ]


def test_the_cells_of_a_quote_over_several_rows_join_into_one_range() -> None:
    doc = parse_bytes(_workbook(), "budget.xlsx")
    start = doc.text.index("Facilities")
    end = doc.text.index("410,000.5") + 3
    spans = [(b.start, b.end, b.place) for b in doc.blocks if b.place]
    from docuchat.corpus.types import PlaceSpan

    places = places_in([PlaceSpan(*s) for s in spans if s[2] is not None], start, end)
    assert [p.label() for p in places if isinstance(p, SheetCells)] == ["Budget 2026!A2:C3"]


def test_csv_is_one_table_in_its_own_dialect() -> None:
    data = "Department;Budget\nFacilities;184 000\nMarketing;92 500\n".encode("cp1252")
    doc = parse_bytes(data, "budget.csv")
    assert _blocks(doc)[1] == "Department | Budget\nFacilities | 184 000"
    assert _place_of(doc, "Marketing") == SheetCells("budget", 3, 3, 1, 2)


def test_a_huge_sheet_is_refused_before_it_is_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sheets, "MAX_CELLS", 1000)
    rows = "\n".join(f"{n},{n * 2},{n * 3}" for n in range(400)).encode()
    with pytest.raises(ParseLimitExceeded, match="more than 1,000 cells"):
        parse_bytes(rows, "big.csv")
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    for n in range(400):
        sheet.append([n, n, n])
    out = io.BytesIO()
    book.save(out)
    with pytest.raises(ParseLimitExceeded):
        parse_bytes(out.getvalue(), "big.xlsx")


# -- EPUB --------------------------------------------------------------------------------


def _epub(chapters: dict[str, str], *, encrypted: bool = False) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as book:
        book.writestr("mimetype", "application/epub+zip")
        book.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:'
            'opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf"'
            ' media-type="application/oebps-package+xml"/></rootfiles></container>',
        )
        items = "".join(
            f'<item id="c{i}" href="{name}" media-type="application/xhtml+xml"/>'
            for i, name in enumerate(chapters)
        )
        spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
        book.writestr(
            "OEBPS/content.opf",
            '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
            '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Field Guide'
            f"</dc:title></metadata><manifest>{items}</manifest><spine>{spine}</spine></package>",
        )
        for name, body in chapters.items():
            book.writestr(
                f"OEBPS/{name}",
                '<?xml version="1.0"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml">'
                f"<head><title>x</title></head><body>{body}</body></html>",
            )
        if encrypted:
            book.writestr("META-INF/encryption.xml", "<encryption><c URI='OEBPS/one.xhtml'/>")
    return out.getvalue()


def test_epub_chapters_come_in_reading_order_under_their_headings() -> None:
    data = _epub(
        {
            "one.xhtml": "<h1>Glaciers</h1><p>Alpine glaciers are retreating.</p>",
            "two.xhtml": "<h2>Tides</h2><p>Tides follow the moon.</p><p>Twice a day.</p>",
        }
    )
    doc = parse_bytes(data, "guide.epub")
    assert doc.title == "Field Guide" and doc.page_count == 2
    assert _blocks(doc) == [
        "Glaciers",
        "Alpine glaciers are retreating.",
        "Tides",
        "Tides follow the moon.",
        "Twice a day.",
    ]
    assert _place_of(doc, "Twice") == Section("Tides", instead_of_page=True)


def test_a_drm_protected_epub_says_so() -> None:
    data = _epub({"one.xhtml": "<p>Secret.</p>"}, encrypted=True)
    with pytest.raises(EncryptedDocument, match="DRM"):
        parse_bytes(data, "locked.epub")


# -- e-mail ------------------------------------------------------------------------------


def _mail(*, charset: str = "utf-8", attachments: bool = True) -> bytes:
    message = EmailMessage()
    message["From"] = "Dana Reyes <dana@example.org>"
    message["To"] = "team@example.org"
    message["Subject"] = "Budget approved"
    message["Date"] = "Tue, 04 Nov 2025 09:30:00 +0000"
    message.set_content("The board approved the 2026 budget.\n\nFacilities gets 184,000.")
    if attachments:
        pdf = (REAL_PDFS / "crazyones-pdfa.pdf").read_bytes()
        message.add_attachment(pdf, maintype="application", subtype="pdf", filename="crazy.pdf")
        message.add_attachment(b"PK\x03\x04", maintype="application", subtype="zip",
                               filename="archive.zip")  # fmt: skip
    data = message.as_bytes()
    return data.replace(b'charset="utf-8"', f'charset="{charset}"'.encode())


def test_email_headers_and_body_with_attachments_handed_back() -> None:
    doc = parse_bytes(_mail(), "approval.eml")
    assert doc.title == "Budget approved"
    blocks = _blocks(doc)
    assert blocks[0].startswith("From: Dana Reyes <dana@example.org>\nTo: team@example.org")
    assert blocks[1:] == ["The board approved the 2026 budget.", "Facilities gets 184,000."]
    assert _place_of(doc, "Facilities") == Section("Body", instead_of_page=True)
    assert [a.name for a in doc.attachments] == ["crazy.pdf", "archive.zip"]
    assert doc.attachments[0].data == (REAL_PDFS / "crazyones-pdfa.pdf").read_bytes()


@pytest.mark.parametrize("charset", ["rot13", "hex", "base64", "zlib", "punycode", "no-such"])
def test_a_body_declaring_a_charset_that_is_not_one_is_still_read(charset: str) -> None:
    doc = parse_bytes(_mail(charset=charset, attachments=False), "odd.eml")
    assert "The board approved the 2026 budget." in doc.text


def test_text_that_is_not_an_email_is_refused() -> None:
    with pytest.raises(UnsupportedFileType, match="not an e-mail"):
        parse_bytes(b"Just some notes.\nNothing else.", "notes.eml")


# -- HTML charsets (issue 13) ------------------------------------------------------------


@pytest.mark.parametrize(
    "charset", ["rot13", "hex", "base64", "zlib", "punycode", "idna", "utf-7x", "bz2_codec"]
)
def test_html_declaring_a_charset_that_is_not_one_is_read_or_refused_typed(charset: str) -> None:
    page = f'<html><head><meta charset="{charset}"><title>T</title></head>'
    page += "<body><p>Tides follow the moon.</p></body></html>"
    doc = parse_bytes(page.encode(), "page.html")
    assert "Tides follow the moon." in doc.text


# -- pictures ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def page_picture() -> bytes:
    """Page 1 of a real PDF as a phone or scanner saves it (askew, noisy), as a PNG."""
    scan = render((REAL_PDFS / "crazyones-pdfa.pdf").read_bytes(), 0, dpi=200)
    out = io.BytesIO()
    degrade(scan.image, angle=0.5).save(out, format="PNG")
    return out.getvalue()


def test_a_picture_of_a_page_is_read_by_ocr_with_word_boxes(page_picture: bytes) -> None:
    doc = parse_bytes(page_picture, "crazy.png")
    assert doc.media_type == "image/png" and doc.page_count == 1
    assert "troublemakers" in doc.text and "round pegs" in doc.text
    assert len(doc.boxes) == 1 and len(doc.boxes[0].spans) > 50
    assert ((doc.boxes[0].boxes >= 0) & (doc.boxes[0].boxes <= 1)).all()


def test_each_frame_of_a_tiff_is_a_page_and_jpeg_is_read_too(page_picture: bytes) -> None:
    from PIL import Image

    image = Image.open(io.BytesIO(page_picture))
    out = io.BytesIO()
    blank = Image.new("L", image.size, 255)
    image.save(out, format="TIFF", save_all=True, append_images=[blank, image])
    progress: list[tuple[int, int]] = []
    doc = parse_bytes(out.getvalue(), "scan.tiff", progress=lambda *p: progress.append(p))
    assert doc.page_count == 3 and {b.page for b in doc.blocks} == {1, 3}
    assert progress == [(1, 3), (2, 3), (3, 3)]
    jpeg = io.BytesIO()
    image.convert("RGB").save(jpeg, format="JPEG", quality=80)
    assert "troublemakers" in parse_bytes(jpeg.getvalue(), "scan.jpg").text


def test_a_picture_claiming_billions_of_pixels_is_refused_before_decoding() -> None:
    from PIL import Image

    out = io.BytesIO()
    Image.new("1", (64, 64)).save(out, format="PNG")
    data = bytearray(out.getvalue())
    data[16:24] = (100_000).to_bytes(4, "big") * 2  # the IHDR says 100,000 x 100,000
    data[29:33] = zlib.crc32(bytes(data[12:29])).to_bytes(4, "big")  # with a valid checksum
    with pytest.raises(ParseLimitExceeded, match="pixels"):
        parse_bytes(bytes(data), "huge.png")


def test_a_blank_picture_has_no_text_and_a_broken_one_is_corrupt(page_picture: bytes) -> None:
    from PIL import Image

    out = io.BytesIO()
    Image.new("L", (800, 600), 255).save(out, format="PNG")
    with pytest.raises(Exception, match="OCR found no text"):
        parse_bytes(out.getvalue(), "blank.png")
    with pytest.raises(CorruptDocument):
        parse_bytes(page_picture[: len(page_picture) // 2], "cut.png")


# -- zip bombs, every zip format ---------------------------------------------------------


@pytest.mark.parametrize("name", ["deck.pptx", "book.xlsx", "guide.epub"])
def test_zip_formats_refuse_an_archive_that_expands_too_far(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(zip_guard, "RATIO_FLOOR", 1024 * 1024)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bomb.xml", b"\0" * (64 * 1024 * 1024))  # 64 MiB in about 64 KiB
    with pytest.raises(ArchiveBomb, match="more than 100:1"):
        parse_bytes(out.getvalue(), name)


@pytest.mark.parametrize("name", ["deck.pptx", "book.xlsx", "guide.epub"])
def test_zip_formats_refuse_damage_and_strangers_typed(name: str) -> None:
    with pytest.raises(UnsupportedFileType):
        parse_bytes(b"plain text, no zip", name)
    with pytest.raises(CorruptDocument):
        parse_bytes(b"PK\x03\x04" + b"\x00" * 200, name)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("readme.txt", "a zip, but not of this kind")
    with pytest.raises(UnsupportedFileType):
        parse_bytes(out.getvalue(), name)


def test_office_parts_declaring_entities_are_refused() -> None:
    data = bytearray(_workbook())
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as source, zipfile.ZipFile(out, "w") as copy:
        for entry in source.infolist():
            body = source.read(entry)
            if entry.filename == "xl/workbook.xml":
                body = b'<!DOCTYPE x [<!ENTITY a "aaaa">]>' + body
            copy.writestr(entry, body)
    with pytest.raises(CorruptDocument, match="DOCTYPE or entities"):
        parse_bytes(out.getvalue(), "entities.xlsx")


# -- sections of page-less text ----------------------------------------------------------


def test_markdown_and_html_blocks_stand_under_their_heading() -> None:
    doc = parse_bytes(b"# Handbook\n\nIntro.\n\n## Travel\n\nHotels up to 180 a night.", "h.md")
    assert _place_of(doc, "Intro.") == Section("Handbook")
    assert _place_of(doc, "Hotels") == Section("Travel")
    page = b"<p>Before any heading.</p><h2>Leave <em>policy</em></h2><p>27 days.</p>"
    html = parse_bytes(page, "p.html")
    assert _place_of(html, "Before") is None
    assert _place_of(html, "27 days") == Section("Leave policy")


def test_a_workbook_s_numbers_read_as_their_cells_show_them() -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["Plan", "Share", "Price", "Year", "Change", "Ratio"])
    sheet.append(["Fleet", 0.15, 1234.5, 2026, -1200, 0.5])
    formats = ["@", "0%", '"$"#,##0.00', "0", "#,##0;(#,##0)", "# ?/?"]
    for cell, number_format in zip(sheet[2], formats, strict=True):
        cell.number_format = number_format
    # General: as stored, thousands grouped from five digits on (a year is no "2,027")
    sheet.append(["Crew", 0.1, 6850, 2027, -12500, 0.25])
    out = io.BytesIO()
    book.save(out)
    blocks = _blocks(parse_bytes(out.getvalue(), "plans.xlsx"))
    assert blocks[1].endswith("\nFleet | 15% | $1,234.50 | 2026 | (1,200) | 0.5")
    assert blocks[2].endswith("\nCrew | 0.1 | 6850 | 2027 | -12,500 | 0.25")
