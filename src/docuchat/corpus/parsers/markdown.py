"""Markdown: rendered to HTML by cmark-gfm, then read like any HTML page.

cmark-gfm (C, CommonMark plus tables and strikethrough) is about fifteen times
faster here than a pure-Python parser. Reading its HTML drops the syntax marks:
headings, paragraphs, list items and table rows become blocks of plain text,
links keep their text, code keeps its layout and raw HTML is reduced to its
visible text (scripts dropped). A YAML front matter is removed; its
``title:`` is the document's title, else the first heading, else the file name.
"""

from __future__ import annotations

import re

import cmarkgfm
from cmarkgfm.cmark import Options

from docuchat.corpus.parsers._decode import decode_text
from docuchat.corpus.parsers.html import document_from_markup
from docuchat.corpus.types import ParsedDocument

MEDIA_TYPE = "text/markdown"

_EXTENSIONS = ["table", "strikethrough", "autolink"]
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_FRONT_MATTER_TITLE = re.compile(r"""^title:[ \t]*["']?(.*?)["']?[ \t]*$""", re.MULTILINE)


def parse(data: bytes, stem: str) -> ParsedDocument:
    source, encoding = decode_text(data)
    source = source.replace("\r\n", "\n")
    title = None
    front_matter = _FRONT_MATTER.match(source)
    if front_matter:
        title_line = _FRONT_MATTER_TITLE.search(front_matter[1])
        title = title_line[1] if title_line else None
        source = source[front_matter.end() :]
    markup = cmarkgfm.markdown_to_html_with_extensions(
        source, options=Options.CMARK_OPT_UNSAFE, extensions=_EXTENSIONS
    )
    return document_from_markup(
        markup, stem=stem, media_type=MEDIA_TYPE, encoding=encoding, title=title
    )
