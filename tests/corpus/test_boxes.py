"""A quote's boxes, from the stored text back to the glyphs on the page.

Against pypdfium2's own glyph boxes of the same characters (``tests/corpus/glyphs.py``):
text layers within 0.001 of the page per edge (the stored boxes are kept in
1/65535ths); OCR'd scans within 0.01 of the page per edge (Tesseract's word boxes
on a scan turned 0.3 degrees, against the glyphs of the page it was made from).
"""

from __future__ import annotations

import io
import itertools
import unicodedata
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest

from docuchat.corpus.locations import PageRegion, quote_regions
from docuchat.corpus.parse import parse_bytes
from docuchat.corpus.types import ParsedDocument
from docuchat.research.text import sentence_spans

from .glyphs import glyph_lines, glyph_words
from .scans import degrade, image_pdf, render
from .test_parse_pdf import IMAGE_ONLY, PASSWORD_PROTECTED

REAL_PDFS = Path(__file__).parent / "fixtures" / "real-pdfs"
TEXT_PDFS = sorted(
    path.name
    for path in REAL_PDFS.glob("*.pdf")
    if path.name not in IMAGE_ONLY | PASSWORD_PROTECTED
)
TEXT_LAYER_TOLERANCE = 0.001
OCR_TOLERANCE = 0.01


def _sentences(doc: ParsedDocument, *, shortest: int = 30) -> list[tuple[int, int]]:
    return [
        (start, end)
        for start, end in sentence_spans(doc.text)
        if end - start >= shortest and "\n" not in doc.text[start:end]
    ]


def _page_of(doc: ParsedDocument, offset: int) -> int:
    return max((b for b in doc.blocks if b.start <= offset), key=lambda b: b.start).page


def _assert_close(got: PageRegion, want: list[tuple[float, ...]], tolerance: float) -> None:
    assert len(got.boxes) == len(want), (got.boxes, want)
    for box, reference in zip(got.boxes, want, strict=True):
        assert max(abs(a - b) for a, b in zip(box, reference, strict=True)) <= tolerance


@pytest.mark.parametrize(
    "name",
    ["pdflatex-4-pages.pdf", "multicolumn.pdf", "google-doc-document.pdf", "crazyones-pdfa.pdf"],
)
def test_quote_boxes_match_pypdfium2_glyph_boxes_on_real_pdfs(name: str) -> None:
    data = (REAL_PDFS / name).read_bytes()
    doc = parse_bytes(data, name)
    checked = 0
    for start, end in _sentences(doc):
        quote = doc.text[start:end]
        page = _page_of(doc, start)
        page_start = next(b.start for b in doc.blocks if b.page == page)
        want = glyph_lines(data, page, quote, doc.text.count(quote, page_start, start))
        if not want:
            continue  # a ligature or hyphenation: PDFium's raw text differs from the quote
        (region,) = quote_regions(doc.boxes, start, end)
        assert region.page == page
        _assert_close(region, want, TEXT_LAYER_TOLERANCE)
        checked += 1
    assert checked >= 3


def _turned(data: bytes, rotation: int) -> bytes:
    """The PDF with every page shown turned clockwise, the second one also cropped."""
    document = pdfium.PdfDocument(data)
    for index in range(len(document)):
        page = document[index]
        page.set_rotation(rotation)
        if index == 1:
            page.set_cropbox(50, 100, 500, 700)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _stored(word: str) -> str:
    """A word of PDFium's text as the stored text holds it (NFKC, no control characters)."""
    normalised = unicodedata.normalize("NFKC", word)
    return "".join(c for c in normalised if unicodedata.category(c) != "Cc")


@pytest.mark.parametrize(
    ("name", "rotation"),
    [(name, 0) for name in TEXT_PDFS] + [("pdflatex-4-pages.pdf", r) for r in (90, 180, 270)],
)
def test_every_word_is_a_piece_boxed_by_the_union_of_its_glyph_boxes(
    name: str, rotation: int
) -> None:
    """Every word of PDFium's text that has a glyph box is one piece, in order, and its
    box is the union of its characters' glyph boxes on the page as shown (to float32)."""
    data = (REAL_PDFS / name).read_bytes()
    if rotation:
        data = _turned(data, rotation)
    doc = parse_bytes(data, name)
    pages = {boxes.page: boxes for boxes in doc.boxes}
    for number in range(1, doc.page_count + 1):
        want = [(_stored(word), box) for word, box in glyph_words(data, number) if box]
        want = [(word, box) for word, box in want if word]
        got = pages.get(number)
        if got is None:
            assert not want
            continue
        spans = got.spans.tolist()
        assert [doc.text[start:end] for start, end in spans] == [word for word, _ in want]
        assert all(end <= start for (_, end), (start, _) in itertools.pairwise(spans))
        np.testing.assert_allclose(got.boxes, [box for _, box in want], rtol=1e-6, atol=1e-7)


def test_a_quote_across_a_page_break_has_one_region_per_page() -> None:
    doc = parse_bytes((REAL_PDFS / "pdflatex-4-pages.pdf").read_bytes(), "four.pdf")
    second_page = next(b for b in doc.blocks if b.page == 2).start
    regions = quote_regions(doc.boxes, second_page - 30, second_page + 30)
    assert [r.page for r in regions] == [1, 2]
    last_line_of_one, first_line_of_two = regions[0].boxes[-1], regions[1].boxes[0]
    assert last_line_of_one[1] > 0.7 and first_line_of_two[1] < 0.3  # foot of 1, head of 2


def test_part_of_a_word_gets_part_of_its_box() -> None:
    doc = parse_bytes((REAL_PDFS / "minimal-document.pdf").read_bytes(), "minimal.pdf")
    start = doc.text.index("consetetur")
    (whole,) = quote_regions(doc.boxes, start, start + len("consetetur"))
    (half,) = quote_regions(doc.boxes, start, start + 5)
    (x0, y0, x1, y1), (h0, hy0, h1, hy1) = whole.boxes[0], half.boxes[0]
    assert (h0, hy0, hy1) == (x0, y0, y1)
    assert h1 == pytest.approx(x0 + (x1 - x0) / 2, abs=1e-6)


@pytest.fixture(scope="module")
def scanned() -> tuple[bytes, ParsedDocument]:
    """Page 1 of a real PDF as a scanner gives it (300 dpi, 0.3 degrees askew, noise,
    JPEG), in a PDF without a text layer, read by OCR."""
    original = (REAL_PDFS / "google-doc-document.pdf").read_bytes()
    scan = render(original, 0)
    pdf = image_pdf([degrade(scan.image, angle=0.3)])
    return original, parse_bytes(pdf, "scan.pdf")


def test_a_scanned_page_is_read_by_ocr_with_its_words(
    scanned: tuple[bytes, ParsedDocument],
) -> None:
    _, doc = scanned
    assert doc.metadata["ocr_pages"] == 1
    assert "Beautiful is better than ugly." in doc.text
    assert len(doc.boxes) == 1 and len(doc.boxes[0].spans) > 100


def test_quote_boxes_on_an_ocr_scan_match_the_glyphs_of_the_page_it_shows(
    scanned: tuple[bytes, ParsedDocument],
) -> None:
    original, doc = scanned
    checked = 0
    for start, end in _sentences(doc, shortest=40):
        want = glyph_lines(original, 1, doc.text[start:end])
        if not want:
            continue  # OCR misread a character of this one
        (region,) = quote_regions(doc.boxes, start, end)
        _assert_close(region, want, OCR_TOLERANCE)
        checked += 1
    assert checked >= 2
