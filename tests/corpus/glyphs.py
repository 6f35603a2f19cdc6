"""What pypdfium2 itself says about where a PDF's text is drawn: the reference for boxes.

Independent of docuchat's parser: the quote is found in PDFium's own page text, and
its boxes are the unions of PDFium's glyph boxes of its characters, one per line of
PDFium's text (a line ends at "\\r\\n", or at U+FFFE where PDFium joined a hyphenated
word), as fractions of the page (top-left origin).
"""

from __future__ import annotations

import pypdfium2 as pdfium

Box = tuple[float, float, float, float]
_JOIN = "\ufffe"


def glyph_lines(pdf: bytes, page_number: int, quote: str, occurrence: int = 0) -> list[Box]:
    """The boxes of the ``occurrence``-th ``quote`` on the page, one per line; [] if
    PDFium's text of the page does not hold it (with its line ends read as spaces)."""
    document = pdfium.PdfDocument(pdf)
    try:
        page = document[page_number - 1]
        left, bottom, right, top = page.get_cropbox()
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
            box = [(x0 - left) / (right - left), (top - y1) / (top - bottom),
                   (x1 - left) / (right - left), (top - y0) / (top - bottom)]  # fmt: skip
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
