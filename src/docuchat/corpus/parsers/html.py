"""HTML: visible text in block structure; scripts, styles and navigation dropped.

Block-level elements (paragraphs, headings, list items, table rows, ...) become
blocks, each standing under the section of the heading before it; inline
whitespace is collapsed as a browser would, ``<br>`` keeps its line break,
``<pre>`` keeps its layout, table cells are joined with `` | `` and images stand
for their ``alt`` text.
The tree is walked iteratively, so deeply nested pages cannot exhaust the stack.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import lxml.html
from lxml import etree

from docuchat.corpus.parsers._decode import decode_text
from docuchat.corpus.parsers._document import DocumentBuilder, pick_title
from docuchat.corpus.types import ParsedDocument, Section
from docuchat.errors import EmptyDocument

MEDIA_TYPE = "text/html"

_SKIPPED = frozenset(
    {"head", "script", "style", "nav", "noscript", "template", "svg", "iframe", "object"}
)
_BLOCKS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "dd", "details",
        "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form",
        "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "html", "li", "main", "ol", "p",
        "pre", "section", "summary", "table", "tbody", "tfoot", "thead", "tr", "ul",
    }
)  # fmt: skip
_CELLS = frozenset({"td", "th"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_:.-]+)""", re.IGNORECASE)
_XML_DECLARATION = re.compile(r"\A\s*<\?xml[^>]*\?>")
_WHITESPACE = re.compile(r"\s+")
_SPACES = re.compile(r" {2,}")
_SPACES_AROUND_BREAK = re.compile(r" *\n *")
_FIRST_HEADING = "(//h1|//h2|//h3|//h4|//h5|//h6)[1]"


def parse(data: bytes, stem: str) -> ParsedDocument:
    declared = _CHARSET.search(data[:4096])
    text, encoding = decode_text(data, declared=declared[1].decode() if declared else None)
    # lxml refuses str input that carries its own encoding declaration.
    return document_from_markup(
        _XML_DECLARATION.sub("", text), stem=stem, media_type=MEDIA_TYPE, encoding=encoding
    )


def document_from_markup(
    markup: str, *, stem: str, media_type: str, encoding: str, title: str | None = None
) -> ParsedDocument:
    """Lay out HTML as a one-page document. Title: ``title``, else ``<title>``, else the
    first heading, else ``stem``."""
    try:
        root = lxml.html.document_fromstring(markup)
    except etree.ParserError as exc:  # "Document is empty"
        raise EmptyDocument("the document contains no text") from exc
    builder = DocumentBuilder()
    section: Section | None = None
    for block, tag in _tagged_blocks(root):
        if tag in _HEADINGS and block:
            section = Section(" ".join(block.split()))
        builder.add(block, 1, place=section)
    headings = root.xpath(_FIRST_HEADING)
    return builder.build(
        title=pick_title(
            title,
            root.findtext(".//title"),
            headings[0].text_content() if headings else None,
            fallback=stem,
        ),
        page_count=1,
        media_type=media_type,
        metadata={"encoding": encoding},
        empty_reason="the document contains no visible text",
    )


def visible_blocks(root: lxml.html.HtmlElement) -> Iterator[str]:
    """The visible text under ``root``, one string per block-level element."""
    return (text for text, _ in _tagged_blocks(root))


def _tagged_blocks(root: lxml.html.HtmlElement) -> Iterator[tuple[str, str | None]]:
    """Each block's visible text with the tag of the element it is the text of (None for
    text between blocks)."""
    line: list[str] = []
    walker = etree.iterwalk(root, events=("start", "end"))
    for event, element in walker:
        tag = element.tag if isinstance(element.tag, str) else None  # None: comment or PI
        if event == "start":
            if tag is None or tag in _SKIPPED or element.get("hidden") is not None:
                walker.skip_subtree()
                continue
            if tag in _BLOCKS:
                yield _collapse(line), None
                line = []
            if tag == "pre":
                yield element.text_content(), tag
                walker.skip_subtree()
                continue
            if tag in _CELLS and any(part.strip() for part in line):
                line.append(" | ")
            if tag == "img":
                line.append(_WHITESPACE.sub(" ", element.get("alt", "")))
            line.append(_WHITESPACE.sub(" ", element.text or ""))
        else:
            if tag in _BLOCKS:
                yield _collapse(line), tag
                line = []
            elif tag == "br":
                line.append("\n")
            line.append(_WHITESPACE.sub(" ", element.tail or ""))
    yield _collapse(line), None


def _collapse(line: list[str]) -> str:
    return _SPACES_AROUND_BREAK.sub("\n", _SPACES.sub(" ", "".join(line))).strip()
