"""Markdown: readable text without the syntax marks.

Parsed with markdown-it (CommonMark plus tables). Headings, paragraphs and
list items become blocks of plain text; emphasis and link marks are dropped
(the link text stays, the URL goes), images keep their alt text, code blocks
keep their content, table rows are joined with `` | ``, and raw HTML blocks
are reduced to their visible text. A YAML front matter is removed; its
``title:`` is the document's title.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import lxml.html
from lxml import etree
from markdown_it import MarkdownIt
from markdown_it.token import Token

from docuchat.corpus.parsers._decode import decode_text
from docuchat.corpus.parsers._document import DocumentBuilder, pick_title
from docuchat.corpus.parsers.html import visible_blocks
from docuchat.corpus.types import ParsedDocument

MEDIA_TYPE = "text/markdown"

_MARKDOWN = MarkdownIt("commonmark").enable(["table", "strikethrough"])
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_FRONT_MATTER_TITLE = re.compile(r"""^title:[ \t]*["']?(.*?)["']?[ \t]*$""", re.MULTILINE)
_BREAKS = {"softbreak": " ", "hardbreak": "\n"}


def parse(data: bytes, stem: str) -> ParsedDocument:
    source, encoding = decode_text(data)
    front_title = None
    front_matter = _FRONT_MATTER.match(source)
    if front_matter:
        title_line = _FRONT_MATTER_TITLE.search(front_matter[1])
        front_title = title_line[1] if title_line else None
        source = source[front_matter.end() :]
    builder = DocumentBuilder()
    first_heading = None
    for text, is_heading in _blocks(_MARKDOWN.parse(source)):
        builder.add(text, 1)
        if is_heading and first_heading is None:
            first_heading = text
    return builder.build(
        title=pick_title(front_title, first_heading, fallback=stem),
        page_count=1,
        media_type=MEDIA_TYPE,
        metadata={"encoding": encoding},
    )


def _blocks(tokens: Sequence[Token]) -> Iterator[tuple[str, bool]]:
    """``(text, is_heading)`` per block, in document order."""
    row: list[str] | None = None
    in_heading = False
    for token in tokens:
        if token.type == "inline":
            text = _inline_text(token.children or [])
            if row is None:
                yield text, in_heading
            else:
                row.append(text)
        elif token.type in ("heading_open", "heading_close"):
            in_heading = token.type == "heading_open"
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close" and row is not None:
            yield " | ".join(row), False
            row = None
        elif token.type in ("fence", "code_block"):
            yield token.content, False
        elif token.type == "html_block":
            yield from ((text, False) for text in _html_text(token.content))


def _inline_text(children: Sequence[Token]) -> str:
    parts = []
    for child in children:
        if child.type in ("text", "code_inline", "image"):  # an image's content is its alt text
            parts.append(child.content)
        elif child.type in _BREAKS:
            parts.append(_BREAKS[child.type])
    return "".join(parts)


def _html_text(markup: str) -> Iterator[str]:
    try:
        fragment = lxml.html.fragment_fromstring(markup, create_parent="div")
    except etree.ParserError:  # a bare comment or whitespace: nothing visible
        return
    yield from visible_blocks(fragment)
