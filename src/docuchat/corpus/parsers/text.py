"""Plain text: paragraphs are separated by blank lines, pages by form feeds."""

from __future__ import annotations

import re

from docuchat.corpus.parsers._decode import decode_text
from docuchat.corpus.parsers._document import DocumentBuilder
from docuchat.corpus.types import ParsedDocument

MEDIA_TYPE = "text/plain"
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def parse(data: bytes, stem: str) -> ParsedDocument:
    text, encoding = decode_text(data)
    pages = text.replace("\r\n", "\n").replace("\r", "\n").split("\f")
    if len(pages) > 1 and not pages[-1].strip():  # a final form feed ends the last page
        pages.pop()
    builder = DocumentBuilder()
    for number, page in enumerate(pages, start=1):
        for paragraph in _PARAGRAPH_BREAK.split(page):
            builder.add(paragraph, number)
    return builder.build(
        title=stem, page_count=len(pages), media_type=MEDIA_TYPE, metadata={"encoding": encoding}
    )
