"""HTML parsing: visible text in block structure, with the page's encoding honoured."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from docuchat.corpus.parse import parse_bytes
from docuchat.corpus.types import ParsedDocument
from docuchat.errors import EmptyDocument, UnsupportedFileType

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Travel   policy</title>
  <style>body { font-family: serif; }</style>
  <script>window.analytics = "tracking";</script>
</head>
<body>
  <nav><a href="/">Home</a> | <a href="/about">About</a></nav>
  <h1>Travel policy</h1>
  <p>Book trains for trips under <b>500 km</b>.<br>Flights need approval.</p>
  <!-- reviewed 2024 -->
  <ul><li>Economy class</li><li>Hotel up to <i>€140</i> per night</li></ul>
  <table>
    <tr><th>City</th><th>Daily allowance</th></tr>
    <tr> <td>Lisbon</td> <td>€62</td> </tr>
  </table>
  <pre>  claim  form
    line two</pre>
  <div hidden>Draft text nobody should see</div>
  <noscript>Enable JavaScript</noscript>
  <p>Questions: travel@example.org</p>
</body>
</html>
"""


def _texts(doc: ParsedDocument) -> list[str]:
    return [doc.text[block.start : block.end] for block in doc.blocks]


def test_visible_text_keeps_its_blocks_and_drops_scripts_styles_and_navigation(
    assert_well_formed: Callable[[ParsedDocument], None],
) -> None:
    doc = parse_bytes(PAGE.encode(), "travel.html")

    assert _texts(doc) == [
        "Travel policy",
        "Book trains for trips under 500 km.\nFlights need approval.",
        "Economy class",
        "Hotel up to €140 per night",
        "City | Daily allowance",
        "Lisbon | €62",
        "claim  form\n    line two",
        "Questions: travel@example.org",
    ]
    assert doc.title == "Travel policy"
    assert doc.page_count == 1
    assert doc.media_type == "text/html"
    assert_well_formed(doc)


def test_title_falls_back_to_the_first_h1_then_the_file_name() -> None:
    assert parse_bytes(b"<h1>Expenses</h1><p>Receipts within 30 days.</p>", "e.html").title == (
        "Expenses"
    )
    assert parse_bytes(b"<p>Receipts within 30 days.</p>", "expenses-2024.htm").title == (
        "expenses-2024"
    )


def test_declared_legacy_encoding_is_honoured() -> None:
    page = '<meta charset="windows-1252"><p>Caf\u00e9 \u201cAurora\u201d</p>'.encode("cp1252")
    doc = parse_bytes(page, "menu.html")
    assert doc.text == "Caf\u00e9 \u201cAurora\u201d"
    assert doc.metadata["encoding"] == "cp1252"


def test_xhtml_with_an_xml_declaration_parses() -> None:
    page = b'<?xml version="1.0" encoding="utf-8"?><html><body><p>Stra\xc3\x9fe</p></body></html>'
    assert parse_bytes(page, "page.xhtml.html").text == "Straße"


def test_page_without_visible_text_is_empty() -> None:
    with pytest.raises(EmptyDocument, match="no visible text"):
        parse_bytes(b"<html><head><title>T</title><script>x()</script></head></html>", "e.html")


def test_binary_content_named_html_is_rejected() -> None:
    with pytest.raises(UnsupportedFileType, match="PNG image"):
        parse_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64), "image.html")
