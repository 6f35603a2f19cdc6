"""A PDF's running header or footer (a line that opens or closes every page, its page number
aside) is read once, on its own: not glued to the first sentence of each page."""

from __future__ import annotations

import io

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from docuchat.corpus.parse import parse_bytes

HEADER = "Harbourside Marine Services Ltd - Vessel Maintenance Agreement HMS-2025-017 - page {n}"
BODY = {
    1: [
        "1.1 This Agreement sets out how Harbourside maintains the Customer's four pilot boats",
        "at the Kessock yard, including the annual survey and all planned hull and engine work.",
    ],
    2: [
        "6.2 The Customer will pay each correct invoice within 45 days after the month's end,",
        "and Harbourside may charge interest at 2% a month on any amount paid late after that.",
    ],
    3: [
        "9.1 Either party may end this Agreement by giving the other at least 90 days' notice,",
        "in writing, to the contacts named in Schedule 1, which either party may update.",
    ],
}


def _pdf(first_lines: dict[int, str]) -> bytes:
    """Three A4 pages, each opened by ``first_lines[n]`` and two full lines of body text."""
    out = io.BytesIO()
    drawing = canvas.Canvas(out, pagesize=A4)
    for n, body in BODY.items():
        drawing.setFont("Helvetica", 9)
        drawing.drawString(40, 800, first_lines[n])
        for i, line in enumerate(body):
            drawing.drawString(40, 770 - 14 * i, line)
        drawing.showPage()
    drawing.save()
    return out.getvalue()


def _first_block(doc_text: str, blocks: list[tuple[int, int, int]], page: int) -> str:
    start, end = next((s, e) for p, s, e in blocks if p == page)
    return doc_text[start:end]


def test_a_running_header_is_read_once_and_glued_to_nothing() -> None:
    doc = parse_bytes(_pdf({n: HEADER.format(n=n) for n in BODY}), "agreement.pdf")
    blocks = [(b.page, b.start, b.end) for b in doc.blocks]

    assert doc.text.count("Vessel Maintenance Agreement HMS-2025-017") == 1
    assert _first_block(doc.text, blocks, 1) == HEADER.format(n=1)
    assert _first_block(doc.text, blocks, 2).startswith("6.2 The Customer will pay")
    assert _first_block(doc.text, blocks, 3).startswith("9.1 Either party may end")


def test_lines_that_open_pages_with_other_words_are_all_kept() -> None:
    headings = {1: "Part A: scope of the maintenance work", 2: "Part B: charges and payment"}
    headings[3] = "Part C: how the agreement ends"
    doc = parse_bytes(_pdf(headings), "agreement.pdf")

    assert all(heading in doc.text for heading in headings.values())
