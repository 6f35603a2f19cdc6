"""PDF through PDFium (pypdfium2): the fastest and most robust parser measured.

See ``bench/pdf_parsers.py`` and ``docs/readme/ingestion.md`` for the
comparison with pypdf and pdfplumber. PDFium already joins words hyphenated
at a line end (marking the join with U+FFFE, which we drop) and keeps columns
apart. Text is NFKC-normalised so that ligatures ("ﬁ") and presentation forms
become the letters people search for. A page's lines are joined into
paragraphs: a line clearly shorter than a full line of the page ends one,
and stands alone if it does not end like a sentence (a heading, a label).
The title is the metadata title, else such a heading opening the document
(of more than one word: single words are mostly labels), else the file name.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterator

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from docuchat.corpus.parsers._document import DocumentBuilder, clean_text, pick_title
from docuchat.corpus.types import ParsedDocument
from docuchat.errors import CorruptDocument, EncryptedDocument, UnsupportedFileType

MEDIA_TYPE = "application/pdf"

# PDFium is not thread-safe, not even across documents: one call at a time per process.
_PDFIUM_LOCK = threading.Lock()
_HEADER_WINDOW = 1024  # readers accept junk before "%PDF-" within the first kilobyte
_LOCKED_ERRORS = (pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY)
_METADATA_KEYS = {
    "Author": "author",
    "Subject": "subject",
    "Creator": "creator",
    "Producer": "producer",
}
_JOINED_HYPHEN = re.compile(r"\ufffe\s*")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SHORT_LINE = 0.75  # of a full line on the page: such a line ends a paragraph
_CLAUSE_ENDS = (".", "!", "?", ":", ";", ",", "…", '"', "”", ")")


def parse(data: bytes, stem: str) -> ParsedDocument:
    if b"%PDF-" not in data[:_HEADER_WINDOW]:
        raise UnsupportedFileType("the content is not a PDF (no %PDF- header)")
    with _PDFIUM_LOCK:
        pages, info = _extract(data)
    builder = DocumentBuilder()
    first_heading = None
    for number, page_text in enumerate(pages, start=1):
        for paragraph, is_heading in _paragraphs(page_text):
            if builder.is_empty and is_heading and len(paragraph.split()) > 1:
                first_heading = paragraph  # a title line opens the document
            builder.add(paragraph, number)
    return builder.build(
        title=pick_title(info.get("Title"), first_heading, fallback=stem),
        page_count=len(pages),
        media_type=MEDIA_TYPE,
        metadata={
            name: clean_text(info[key]) for key, name in _METADATA_KEYS.items() if info.get(key)
        },
        empty_reason=(
            f"the PDF's {len(pages)} page(s) hold no extractable text: it looks scanned or "
            "image-only, and OCR is not supported"
        ),
    )


def _extract(data: bytes) -> tuple[list[str], dict[str, str]]:
    """Each page's raw text and the document information dictionary."""
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if exc.err_code in _LOCKED_ERRORS:
            raise EncryptedDocument(
                "the PDF is password-protected; remove the password and try again"
            ) from exc
        raise CorruptDocument(f"the PDF is damaged and cannot be read ({exc})") from exc
    try:
        pages = [_page_text(document, index) for index in range(len(document))]
        return pages, dict(document.get_metadata_dict())
    except pdfium.PdfiumError as exc:
        raise CorruptDocument(f"the PDF is damaged and cannot be read ({exc})") from exc
    finally:
        document.close()


def _page_text(document: pdfium.PdfDocument, index: int) -> str:
    page = document[index]
    try:
        text_page = page.get_textpage()
        try:
            return str(text_page.get_text_range())
        finally:
            text_page.close()
    finally:
        page.close()


def _paragraphs(page_text: str) -> Iterator[tuple[str, bool]]:
    """``(paragraph, is_heading)`` in reading order; blank paragraphs included."""
    text = _JOINED_HYPHEN.sub("", unicodedata.normalize("NFKC", page_text))
    lines = [line.strip() for line in _LINE_BREAK.split(text)]
    short = _SHORT_LINE * _full_line_length(lines)
    paragraph: list[str] = []
    for line in lines:
        if len(line) >= short:
            paragraph.append(line)
        elif line.endswith(_CLAUSE_ENDS):  # the last line of a paragraph
            yield " ".join([*paragraph, line]), False
            paragraph = []
        else:  # a heading, a label, a page number: on its own
            yield " ".join(paragraph), False
            yield line, True
            paragraph = []
    yield " ".join(paragraph), False


def _full_line_length(lines: list[str]) -> int:
    """The length of a typical full line: the upper quartile, so that a few wide
    lines (a heading across two columns, two lines PDFium joined at a hyphen)
    do not make every ordinary line look short."""
    lengths = sorted(len(line) for line in lines if line)
    return lengths[len(lengths) * 3 // 4] if lengths else 0
