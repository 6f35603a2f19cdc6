"""EPUB e-books read from the zip directly: the spine's chapters in reading order.

ebooklib would load every item of the book (images, fonts) into memory unguarded;
the format is a zip of XHTML files listed by an OPF package, so reading the
container, the package and then each chapter through the guarded archive is short
and bounded. A chapter's text is laid out by the HTML reader; each
chapter is one page, and its blocks stand under the section of its first heading
(else "Chapter N").
"""

from __future__ import annotations

import posixpath
from urllib.parse import unquote

import lxml.html
from lxml import etree

from docuchat.corpus.parsers._document import DocumentBuilder, pick_title
from docuchat.corpus.parsers._zip import GuardedArchive, check_markup, open_archive
from docuchat.corpus.parsers.html import visible_blocks
from docuchat.corpus.types import ParsedDocument, Section
from docuchat.errors import (
    CorruptDocument,
    EncryptedDocument,
    ParseLimitExceeded,
    UnsupportedFileType,
)

MEDIA_TYPE = "application/epub+zip"
MAX_CHAPTERS = 5000

_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"
_DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
_XHTML = ("application/xhtml+xml", "text/html")
_FIRST_HEADING = "(//h1|//h2|//h3|//h4|//h5|//h6)[1]"


def parse(data: bytes, stem: str) -> ParsedDocument:
    with open_archive(data, "EPUB") as archive:
        names = set(archive.names())
        if "META-INF/container.xml" not in names:
            raise UnsupportedFileType("the content is not an EPUB (no META-INF/container.xml)")
        if "META-INF/encryption.xml" in names and _encrypts_chapters(archive):
            raise EncryptedDocument("the EPUB is DRM-protected; its chapters are encrypted")
        title, chapters = _package(archive)
        if len(chapters) > MAX_CHAPTERS:
            raise ParseLimitExceeded(f"the EPUB has {len(chapters):,} chapters")
        builder = DocumentBuilder()
        page = 0
        for path in chapters:
            markup = archive.read(path)
            if markup is None or not markup.strip():
                continue
            check_markup(markup, f"the EPUB chapter {path}", doctype=True)
            try:
                root = lxml.html.document_fromstring(markup)
            except (etree.ParserError, ValueError):
                continue  # an empty or unreadable chapter: the others still count
            page += 1
            headings = root.xpath(_FIRST_HEADING)
            heading = pick_title(
                headings[0].text_content() if headings else None, fallback=f"Chapter {page}"
            )
            for block in visible_blocks(root):
                builder.add(block, page, place=Section(heading, instead_of_page=True))
    return builder.build(
        title=pick_title(title, fallback=stem),
        page_count=max(page, 1),
        media_type=MEDIA_TYPE,
        empty_reason="the e-book's chapters hold no text",
    )


def _package(archive: GuardedArchive) -> tuple[str | None, list[str]]:
    """The book's title and its chapters' paths in reading order."""
    container = archive.xml("META-INF/container.xml")
    rootfile = container.find(f".//{_CONTAINER}rootfile") if container is not None else None
    opf_path = rootfile.get("full-path", "") if rootfile is not None else ""
    package = archive.xml(opf_path) if opf_path else None
    if package is None:
        raise CorruptDocument("the EPUB has no package document (OPF)")
    folder = posixpath.dirname(opf_path)
    manifest = {
        item.get("id"): item
        for item in package.iter(f"{_OPF}item")
        if item.get("media-type") in _XHTML
    }
    chapters = []
    for reference in package.iter(f"{_OPF}itemref"):
        item = manifest.get(reference.get("idref"))
        if item is not None and item.get("href"):
            href = unquote(item.get("href", "").split("#")[0])
            chapters.append(posixpath.normpath(posixpath.join(folder, href)))
    return package.findtext(f".//{_DC_TITLE}"), list(dict.fromkeys(chapters))


def _encrypts_chapters(archive: GuardedArchive) -> bool:
    """Whether encryption.xml covers more than fonts (font obfuscation is not DRM)."""
    encryption = archive.read("META-INF/encryption.xml") or b""
    return any(suffix in encryption.lower() for suffix in (b".xhtml", b".html", b".htm", b".opf"))
