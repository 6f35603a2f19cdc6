"""What pypdfium2 itself says about where a PDF's text is drawn: the reference for boxes.

Independent of docuchat's parser: the quote is found in PDFium's own page text, and
its boxes are the unions of PDFium's glyph boxes of its characters (``get_charbox``, one
call each), one per line of PDFium's text (a line ends at "\\r\\n", or at U+FFFE where
PDFium joined a hyphenated word), as fractions of the page as shown (top-left origin),
placed by PDFium's own page-to-device transform (crop box, rotation).
"""

from __future__ import annotations

import ctypes
import re

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

Box = tuple[float, float, float, float]
_JOIN = "\ufffe"
_WORD = re.compile(r"[^\s\x02\ufffe]+")  # up to a space, a line end or a hyphen join
_DEVICE = 100_000_000  # pixels a side: PDFium gives device points as integers


def glyph_lines(pdf: bytes, page_number: int, quote: str, occurrence: int = 0) -> list[Box]:
    """The boxes of the ``occurrence``-th ``quote`` on the page, one per line; [] if
    PDFium's text of the page does not hold it (with its line ends read as spaces)."""
    document = pdfium.PdfDocument(pdf)
    try:
        page = document[page_number - 1]
        text_page = page.get_textpage()
        text = text_page.get_text_range()
        flat, origin = _flattened(text)
        found = -1
        for _ in range(occurrence + 1):
            found = flat.find(quote, found + 1)
            if found < 0:
                return []
        lines: list[list[float]] = []
        line_of_previous = None
        for position in range(found, found + len(quote)):
            index, line = origin[position]
            x0, y0, x1, y1 = text_page.get_charbox(index)
            if x1 <= x0 or y1 <= y0 or text[index].isspace():
                continue
            (a, b), (c, d) = _shown(page, x0, y0), _shown(page, x1, y1)
            box = [min(a, c), min(b, d), max(a, c), max(b, d)]
            if lines and line == line_of_previous:
                last = lines[-1]
                lines[-1] = [min(last[0], box[0]), min(last[1], box[1]),
                             max(last[2], box[2]), max(last[3], box[3])]  # fmt: skip
            else:
                lines.append(box)
            line_of_previous = line
        return [(a, b, c, d) for a, b, c, d in lines]
    finally:
        document.close()


def glyph_words(pdf: bytes, page_number: int) -> list[tuple[str, Box | None]]:
    """Each word of PDFium's text of the page, in order, with the union of its characters'
    glyph boxes (None if none has a box) as the page is shown: mapped by PDFium's own
    page-to-device transform (crop box and rotation), one ``get_charbox`` per character."""
    document = pdfium.PdfDocument(pdf)
    try:
        page = document[page_number - 1]
        text_page = page.get_textpage()
        words: list[tuple[str, Box | None]] = []
        for match in _WORD.finditer(text_page.get_text_range()):
            corners = [
                _shown(page, x, y)
                for x0, y0, x1, y1 in map(text_page.get_charbox, range(*match.span()))
                if x1 > x0 and y1 > y0
                for x, y in ((x0, y0), (x1, y1))
            ]
            xs, ys = [x for x, _ in corners], [y for _, y in corners]
            box = (min(xs), min(ys), max(xs), max(ys)) if corners else None
            words.append((match.group(), box))
        return words
    finally:
        document.close()


def _shown(page: pdfium.PdfPage, x: float, y: float) -> tuple[float, float]:
    """A point of user space on the page as shown, as fractions of its width and height."""
    across, down = ctypes.c_int(), ctypes.c_int()
    pdfium_c.FPDF_PageToDevice(page, 0, 0, _DEVICE, _DEVICE, 0, x, y, across, down)
    return across.value / _DEVICE, down.value / _DEVICE


def _flattened(text: str) -> tuple[str, list[tuple[int, int]]]:
    """PDFium's text with line ends as one space and hyphen joins removed, and for each
    character its index in PDFium's text and its line number."""
    flat: list[str] = []
    origin: list[tuple[int, int]] = []
    line, i = 0, 0
    while i < len(text):
        if text[i] == _JOIN:
            line += 1
            i += 1
        elif text.startswith("\r\n", i):
            flat.append(" ")
            origin.append((i, line))
            line += 1
            i += 2
        else:
            flat.append(text[i])
            origin.append((i, line))
            i += 1
    return "".join(flat), origin
