"""A PDF citation on its original page: the quote's boxes drawn over the glyphs it quotes.

The PDF is real and has several pages: Chromium prints it from a page of three
sheets. The check is made on the screenshot's pixels: inside each line of the
quote, where pypdfium2 says its glyphs are, no pixel is bare paper (each is lit, or
ink under the light) and there is ink; away from the quote, no pixel is lit.
"""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image
from playwright.sync_api import Browser, Page, expect

from corpus.glyphs import glyph_lines

from .conftest import LiveServer, ask, screenshot, sign_in

SHEETS = [
    "<h1>Larkspur Office Guide</h1><p>Welcome to the guide for staff of every office.</p>"
    "<p>Each office keeps its own opening hours and its own rules for visitors.</p>",
    "<h2>Lisbon</h2><p>Visitors sign in at the front desk on the ground floor.</p>"
    "<p>The Lisbon office opens at half past eight and closes at six in the evening.</p>"
    "<p>Bicycles are parked in the courtyard behind the building.</p>",
    "<h2>Leeds</h2><p>The Leeds office opens at nine and closes at half past five.</p>",
]
QUESTION = "When does the Lisbon office open?"
QUOTE = "The Lisbon office opens at half past eight and closes at six in the evening."


def _printed_pdf(browser: Browser) -> bytes:
    page = browser.new_page()
    body = "".join(f'<section style="break-after: page">{sheet}</section>' for sheet in SHEETS)
    page.set_content(
        "<html><head><title>Larkspur Office Guide</title></head>"
        f"<body style='font: 16px serif; margin: 2cm'>{body}</body></html>"
    )
    pdf = page.pdf(format="A4")
    page.close()
    return pdf


def _highlight(pixel: tuple[int, ...]) -> bool:
    red, green, blue = pixel[:3]
    return red > 180 and green > 150 and blue < 200 and red - blue > 40


def _ink(pixel: tuple[int, ...]) -> bool:
    return sum(pixel[:3]) < 330


def _bare_paper(pixel: tuple[int, ...]) -> bool:
    red, green, blue = pixel[:3]
    return min(red, green, blue) > 235 and red - blue < 12


def test_a_pdf_citation_opens_its_page_with_the_quote_lit_over_its_glyphs(
    page: Page, browser: Browser, server: LiveServer, tmp_path: Path
) -> None:
    pdf = _printed_pdf(browser)
    path = tmp_path / "office-guide.pdf"
    path.write_bytes(pdf)
    _name, key = server.new_user()
    server.ingest(key, path)
    sign_in(page, server, key)
    ask(page, QUESTION)
    chip = page.locator(".answer button.cite").first
    expect(chip).to_have_attribute("aria-label", "Source 1: Larkspur Office Guide, page 2. "
                                   "Verified: the passage supports the sentence. "
                                   "It addresses the question.")  # fmt: skip
    chip.click()

    panel = page.locator("#passage-panel")
    figure = panel.locator("figure.page-figure")
    expect(figure).to_have_attribute("data-page", "2")
    expect(panel.locator(".passage-meta")).to_contain_text("page 2")
    image = figure.locator("img")
    expect(image).to_have_js_property("complete", True)
    page.wait_for_function("img => img.naturalWidth > 0", arg=image.element_handle())
    boxes = figure.locator(".page-box")
    expect(boxes).to_have_count(len(glyph_lines(pdf, 2, QUOTE)))
    expect(boxes.first).to_be_in_viewport()  # the zoomed page scrolled to the quote
    screenshot(page, "passage-pdf-zoomed")
    panel.get_by_role("button", name="Whole page").click()
    expect(boxes.first).to_be_in_viewport()
    screenshot(page, "passage-pdf-page")

    # Where the picture is inside the figure's screenshot, in CSS pixels.
    left, top, width, height = image.evaluate(
        """img => { const r = img.getBoundingClientRect(), f = img.parentElement
                      .getBoundingClientRect(); return [r.left - f.left, r.top - f.top,
                      r.width, r.height]; }"""
    )
    shot = Image.open(io.BytesIO(figure.screenshot())).convert("RGB")
    scale = shot.width / figure.bounding_box()["width"]  # type: ignore[index]

    def pixels(box: tuple[float, ...], inset: float) -> list[tuple[int, int]]:
        x0, y0, x1, y1 = box
        px0, px1 = (left + x0 * width) * scale + inset, (left + x1 * width) * scale - inset
        py0, py1 = (top + y0 * height) * scale + inset, (top + y1 * height) * scale - inset
        return [
            (x, y) for x in range(int(px0), int(px1) + 1) for y in range(int(py0), int(py1) + 1)
        ]

    lines = glyph_lines(pdf, 2, QUOTE)
    assert lines
    for line in lines:
        inside = [shot.getpixel(p) for p in pixels(line, 1.5)]
        bare = sum(_bare_paper(p) for p in inside) / len(inside)  # type: ignore[arg-type]
        ink = sum(_ink(p) for p in inside) / len(inside)  # type: ignore[arg-type]
        assert bare < 0.01, f"part of the line {line} is not lit: {bare:.3f} bare paper"
        assert ink > 0.05, "the glyphs are not under the highlight"
    near = {p for line in lines for p in pixels(line, -6 * scale)}
    elsewhere = [
        shot.getpixel((x, y))
        for x in range(0, shot.width, 2)
        for y in range(0, int((top + height) * scale), 2)
        if (x, y) not in near
    ]
    stray = sum(_highlight(p) for p in elsewhere) / len(elsewhere)  # type: ignore[arg-type]
    assert stray < 0.002, f"highlight outside the quote: {stray:.4f}"
    # A document of the list opens on its pages too.
    page.get_by_role("button", name="Documents").click()
    page.get_by_role("button", name="Open Larkspur Office Guide").click()
    expect(panel.locator(".page-figure")).to_have_count(3)
    expect(page.locator("#passage-heading")).to_have_text("Larkspur Office Guide")
    expect(panel.locator(".page-box")).to_have_count(0)
