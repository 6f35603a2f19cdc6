"""PDF through PDFium (pypdfium2): the fastest and most robust parser measured.

See ``bench/pdf_parsers.py`` and ``docs/readme/ingestion.md`` for the
comparison with pypdf and pdfplumber. The text layer is read character by
character with each glyph's box, so every word of the stored text keeps where it
is drawn. PDFium already joins words hyphenated at a line end (marking the join
with U+FFFE: the two halves stay two pieces with their own boxes) and keeps
columns apart. Text is NFKC-normalised so that ligatures ("ﬁ") and presentation
forms become the letters people search for. A page's lines are joined into
paragraphs: a line clearly shorter than a full line of the page ends one, and
stands alone if it does not end like a sentence (a heading, a label).

A page with no text layer but an image (a scan, or the scanned pages of a mixed
PDF) is rendered and read by OCR (``docuchat.corpus.ocr``), words and boxes too.

The title is the metadata title, else such a heading opening the document
(of more than one word: single words are mostly labels), else the file name.
"""

from __future__ import annotations

import ctypes
import math
import re
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from PIL import Image

from docuchat.corpus.ocr import OcrWord, get_engine, paragraphs
from docuchat.corpus.parsers._document import DocumentBuilder, clean_text, pick_title
from docuchat.corpus.parsers._layout import (
    NOWHERE,
    Boxes,
    Lines,
    Word,
    join_paragraphs,
    laid_out,
    located_words,
    paragraph,
    paragraphs_by_length,
)
from docuchat.corpus.types import ParsedDocument
from docuchat.errors import (
    CorruptDocument,
    EncryptedDocument,
    ParseLimitExceeded,
    UnsupportedFileType,
)

MEDIA_TYPE = "application/pdf"

MAX_PAGES = 5000
MAX_PAGE_CHARS = 200_000  # a dense page of 6-point text holds about 20,000
OCR_DPI = 300
MAX_OCR_PIXELS = 40_000_000  # a page rendered for OCR: A3 at 300 dpi is 17 million
MIN_OCR_POINTS = 36  # half an inch: smaller pages (icons, test images) hold no text to read

# PDFium is not thread-safe, not even across documents: one call at a time per process.
PDFIUM_LOCK = threading.Lock()
_HEADER_WINDOW = 1024  # readers accept junk before "%PDF-" within the first kilobyte
_LOCKED_ERRORS = (pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY)
_METADATA_KEYS = {
    "Author": "author",
    "Subject": "subject",
    "Creator": "creator",
    "Producer": "producer",
}
# pypdfium2's bindings of the two, taking plain addresses: ctypes converts an int to a void
# pointer much faster than it makes a typed pointer of a c_double, and they run for each word.
_count_rects = ctypes.cast(
    pdfium_c.FPDFText_CountRects,
    ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_int),
)
_get_rect = ctypes.cast(
    pdfium_c.FPDFText_GetRect,
    ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, *[ctypes.c_void_p] * 4),
)
# A page's text: words (up to a space, a line end or a hyphen join) and line ends ("\r\n"
# is one). Where PDFium joined a word hyphenated at a line end (0x02 per character, U+FFFE
# in its page text) the two halves are two words, drawn on two lines, the second glued to
# the first. A word with a character other than printable ASCII is normalised (NFKC,
# control characters dropped).
_WORD = re.compile(r"[^\s\x02\ufffe]+")
_LINE_END = re.compile(r"\r\n|\r|\n")
_GLUED = re.compile(r"(?<=[\x02\ufffe])[^\s\x02\ufffe]")
_UNCLEAN = re.compile(r"[^\s\x02\ufffe\x21-\x7e]")
_WORDED = re.compile(r"[^\W\d_]{2}")  # a line of words, not a bare page number


@dataclass(frozen=True, slots=True)
class _Page:
    lines: Lines
    scanned: Image.Image | None = None  # no text layer, an image: to be read by OCR


def parse(
    data: bytes, stem: str, progress: Callable[[int, int], None] | None = None
) -> ParsedDocument:
    if b"%PDF-" not in data[:_HEADER_WINDOW]:
        raise UnsupportedFileType("the content is not a PDF (no %PDF- header)")
    with PDFIUM_LOCK:
        pages, info = _extract(data)
    builder = DocumentBuilder()
    first_heading = None
    runs = _running_lines(
        [(n, page.lines.texts) for n, page in enumerate(pages, start=1) if page.scanned is None]
    )
    kept: set[str] = set()
    scans = sum(page.scanned is not None for page in pages)
    read = 0
    for number, page in enumerate(pages, start=1):
        if page.scanned is not None:
            for group in paragraphs(get_engine().read(page.scanned)):
                text, pieces = paragraph(Lines.of([ocr_words(line.words) for line in group]))
                builder.add(text, number, pieces=pieces)
            read += 1
            if progress:
                progress(read, scans)
            continue
        running = runs[number]
        laid = _apart(list(paragraphs_by_length(page.lines.texts)), running)
        for (text, pieces), (lines, is_heading) in zip(
            join_paragraphs(page.lines, [lines for lines, _ in laid]), laid, strict=True
        ):
            if len(lines) == 1 and lines.start in running:
                key = _line_key(text, number)
                if key in kept:
                    continue  # a running header or footer, kept once
                kept.add(key)
            elif builder.is_empty and is_heading and len(text.split()) > 1:
                first_heading = text  # a title line opens the document
            builder.add(text, number, pieces=pieces)
    return builder.build(
        title=pick_title(info.get("Title"), first_heading, fallback=stem),
        page_count=len(pages),
        media_type=MEDIA_TYPE,
        metadata={
            name: clean_text(info[key]) for key, name in _METADATA_KEYS.items() if info.get(key)
        }
        | ({"ocr_pages": scans} if scans else {}),
        empty_reason=(
            f"the PDF's {len(pages)} page(s) hold no text: no text layer, and OCR found none"
        ),
    )


def _running_lines(pages: Sequence[tuple[int, Sequence[str]]]) -> dict[int, frozenset[int]]:
    """By page number (of the pages given with their lines), the lines that run across
    pages: a page's first or last written line that, its page number aside, opens or closes
    at least half the pages (two at least), and has words: a running header ("Acme Ltd -
    Services Agreement - page 2") or footer. Read as part of the text it would be glued to
    the paragraph beside it ("…- page 2 6.2 Wallaroo will pay…") on every page. A bare page
    number already stands apart; a heading that opens each page with another number
    ("Chapter 2") is no running line."""
    ends = {number: _written_ends(texts) for number, texts in pages}
    keys = {
        (number, side): _line_key(texts[e[side]], number)
        for number, texts in pages
        if (e := ends[number])
        for side in (0, 1)
    }
    needed = max(2, math.ceil(len(pages) / 2))
    seen = Counter((side, key) for (_, side), key in keys.items())
    running = {
        found for found, count in seen.items() if count >= needed and _WORDED.search(found[1])
    }
    return {
        number: frozenset(
            e[side]
            for side in (0, 1)
            if (e := ends[number]) and (side, keys[number, side]) in running
        )
        for number, _ in pages
    }


def _written_ends(texts: Sequence[str]) -> tuple[int, int] | None:
    """The first and the last written line of a page (None: a page of one line or none)."""
    written = [i for i, text in enumerate(texts) if text.strip()]
    return (written[0], written[-1]) if len(written) > 1 else None


def _line_key(text: str, page: int) -> str:
    """A line with its page's number blanked: the same running line on every page."""
    return " ".join(re.sub(rf"(?<!\d){page}(?!\d)", "#", text.casefold()).split())


def _apart(laid: list[tuple[range, bool]], lines: frozenset[int]) -> list[tuple[range, bool]]:
    """The paragraphs, each of ``lines`` one of its own (not a heading)."""
    if not lines:
        return laid
    apart: list[tuple[range, bool]] = []
    for span, is_heading in laid:
        start = span.start
        for line in sorted(i for i in lines if i in span):
            if line > start:
                apart.append((range(start, line), is_heading))
            apart.append((range(line, line + 1), False))
            start = line + 1
        if start < span.stop or not span:
            apart.append((range(start, span.stop), is_heading))
    return apart


def open_pdf(data: bytes) -> pdfium.PdfDocument:
    """The document, or the typed error for a locked or damaged one (hold ``PDFIUM_LOCK``)."""
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if exc.err_code in _LOCKED_ERRORS:
            raise EncryptedDocument(
                "the PDF is password-protected; remove the password and try again"
            ) from exc
        raise CorruptDocument(f"the PDF is damaged and cannot be read ({exc})") from exc


def _extract(data: bytes) -> tuple[list[_Page], dict[str, str]]:
    """Each page's located lines (or its picture, for OCR) and the information dictionary."""
    document = open_pdf(data)
    try:
        if len(document) > MAX_PAGES:
            raise ParseLimitExceeded(f"the PDF has {len(document):,} pages (limit {MAX_PAGES:,})")
        pages = [_page(document, index) for index in range(len(document))]
        return pages, dict(document.get_metadata_dict())
    except pdfium.PdfiumError as exc:
        raise CorruptDocument(f"the PDF is damaged and cannot be read ({exc})") from exc
    finally:
        document.close()


def _page(document: pdfium.PdfDocument, index: int) -> _Page:
    page = document[index]
    try:
        text_page = page.get_textpage()
        try:
            lines = _lines(text_page, _Frame.of(page))
        finally:
            text_page.close()
        if not any(lines.texts) and _has_image(page) and min(page.get_size()) >= MIN_OCR_POINTS:
            return _Page(lines, _render_for_ocr(page))
        return _Page(lines)
    finally:
        page.close()


@dataclass(frozen=True, slots=True)
class _Frame:
    """Maps PDF user space to fractions of the page as shown (crop box, rotation).

    The box is PDFium's bounding box (crop box within media box, either inherited from
    the page tree, as PDFium renders the page), not pypdfium2's ``get_cropbox``, which
    reads the page's own entries only and falls back to US Letter."""

    left: float
    bottom: float
    width: float
    height: float
    rotation: int

    @classmethod
    def of(cls, page: pdfium.PdfPage) -> _Frame:
        left, bottom, right, top = page.get_bbox()
        return cls(left, bottom, max(right - left, 1e-6), max(top - bottom, 1e-6),
                   page.get_rotation() % 360)  # fmt: skip

    def boxes(self, rects: npt.NDArray[np.float64]) -> Boxes:
        """Rectangles in user space (rows of left, top, right, bottom; NaN: none) as shown."""
        left, top, right, bottom = rects.T
        x0, x1 = (left - self.left) / self.width, (right - self.left) / self.width
        y0, y1 = 1 - (top - self.bottom) / self.height, 1 - (bottom - self.bottom) / self.height
        if self.rotation == 90:  # shown turned clockwise
            x0, y0, x1, y1 = 1 - y1, x0, 1 - y0, x1
        elif self.rotation == 180:
            x0, y0, x1, y1 = 1 - x1, 1 - y1, 1 - x0, 1 - y0
        elif self.rotation == 270:
            x0, y0, x1, y1 = y0, 1 - x1, y1, 1 - x0
        return np.stack([x0, y0, x1, y1], axis=1)


def _lines(text_page: pdfium.PdfTextPage, frame: _Frame) -> Lines:
    """The page's lines as PDFium orders them, with their words' boxes."""
    handle = text_page.raw
    count = pdfium_c.FPDFText_CountChars(handle)
    if count > MAX_PAGE_CHARS:
        raise ParseLimitExceeded(f"a page holds {count:,} characters (limit {MAX_PAGE_CHARS:,})")
    text = text_page.get_text_range()
    if len(text) != count:  # characters outside the BMP: one call per character instead
        text = "".join(chr(pdfium_c.FPDFText_GetUnicode(handle, i)) for i in range(count))
    spans = [match.span() for match in _WORD.finditer(text)]
    starts = np.array([start for start, _ in spans], dtype=np.intp)
    line_ends = [match.start() for match in _LINE_END.finditer(text)]
    line = np.searchsorted(line_ends, starts)
    unended = bool(len(line) and line[-1] == len(line_ends))  # words after the last line end
    glued = np.zeros(len(spans), dtype=bool)
    glued[np.searchsorted(starts, [match.start() for match in _GLUED.finditer(text)])] = True
    texts = [text[start:end] for start, end in spans]
    boxes = frame.boxes(_glyph_unions(text_page, spans))
    unclean = [match.start() for match in _UNCLEAN.finditer(text)]
    if unclean:  # some words are to be normalised: their characters' word indices
        dirty = np.unique(np.searchsorted(starts, unclean, side="right") - 1).tolist()
        texts, boxes, glued, line = _cleaned(dirty, texts, boxes, glued, line)
    return laid_out(texts, boxes, glued, line, len(line_ends) + unended)


def _cleaned(
    dirty: list[int],
    texts: list[str],
    boxes: Boxes,
    glued: npt.NDArray[np.bool_],
    line: npt.NDArray[np.intp],
) -> tuple[list[str], Boxes, npt.NDArray[np.bool_], npt.NDArray[np.intp]]:
    """The words with the ``dirty`` ones replaced by what ``located_words`` makes of them
    (none, one, or a few sharing the box)."""
    made = {
        index: located_words(
            texts[index],
            None if math.isnan(boxes[index, 0]) else tuple(boxes[index].tolist()),
            glued=bool(glued[index]),
        )
        for index in dirty
    }
    if all(len(words) == 1 for words in made.values()):  # the usual: one word, its box
        for index, (word,) in made.items():
            texts[index] = word.text
        return texts, boxes, glued, line
    counts = np.ones(len(texts), dtype=np.intp)
    counts[dirty] = [len(words) for words in made.values()]
    position = np.cumsum(counts) - counts  # of each word's first replacement
    source = np.repeat(np.arange(len(texts)), counts)
    texts, boxes, glued, line = (
        [texts[i] for i in source.tolist()],
        boxes[source],
        glued[source],
        line[source],
    )
    for index, words in made.items():
        for at, word in enumerate(words, start=int(position[index])):
            texts[at], glued[at] = word.text, word.glued
            boxes[at] = word.box or NOWHERE
    return texts, boxes, glued, line


def _glyph_unions(text_page: pdfium.PdfTextPage, words: list[tuple[int, int]]) -> Boxes:
    """Per ``(start, end)`` of characters, the union of the rectangles PDFium gives for
    them (one per text object they are drawn with, each the union of its glyphs' boxes):
    rows of left, top, right, bottom in user space, NaN where nothing is drawn.

    Two calls a word, FPDFText_GetRect writing straight into the row (its four doubles
    are the row's): no Python object per rectangle."""
    handle = ctypes.cast(text_page.raw, ctypes.c_void_p).value
    unions = np.full((len(words) + 1, 4), np.nan)  # the last row: scratch for _union
    first = unions.ctypes.data
    for index, (start, end) in enumerate(words):
        rects = _count_rects(handle, start, end - start)
        if rects == 1:  # nearly every word: drawn with one text object
            row = first + 32 * index
            _get_rect(handle, 0, row, row + 8, row + 16, row + 24)
        elif rects:  # drawn with several text objects
            unions[index] = _union(handle, rects, unions[-1])
    unions = unions[:-1]
    left, top, right, bottom = unions.T
    unions[~((right > left) & (top > bottom))] = np.nan  # empty: drawn nowhere we can tell
    return unions


def _union(handle: int | None, rects: int, scratch: Boxes) -> Boxes:
    """The union of the non-empty rectangles PDFium counted last, NaN if none."""
    at = scratch.ctypes.data
    drawn = []
    for index in range(rects):
        _get_rect(handle, index, at, at + 8, at + 16, at + 24)
        left, top, right, bottom = scratch.tolist()
        if right > left and top > bottom:
            drawn.append((left, top, right, bottom))
    if not drawn:
        return np.full(4, np.nan)
    lefts, tops, rights, bottoms = zip(*drawn, strict=True)
    return np.array([min(lefts), max(tops), max(rights), min(bottoms)])


def _has_image(page: pdfium.PdfPage) -> bool:
    return any(True for _ in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,)))


def _render_for_ocr(page: pdfium.PdfPage) -> Image.Image:
    """The page as shown, at OCR resolution (less for huge pages: bounded in pixels)."""
    width, height = page.get_size()
    scale = OCR_DPI / 72
    pixels = width * height * scale * scale
    if pixels > MAX_OCR_PIXELS:
        scale *= (MAX_OCR_PIXELS / pixels) ** 0.5
    image: Image.Image = page.render(scale=scale, grayscale=True).to_pil()
    return image


def ocr_words(words: tuple[OcrWord, ...]) -> list[Word]:
    return [located for word in words for located in located_words(word.text, word.box)]
