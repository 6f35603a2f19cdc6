"""Files in, ``ParsedDocument`` out: the one entry point for every format.

The file's suffix picks the parser; the parser then checks that the content
really is of that type. Every failure is an :class:`~docuchat.errors.IngestError`
subclass carrying the file's name in ``path``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path, PurePath

from docuchat.corpus.parsers import docx, eml, epub, html, image, markdown, pdf, pptx, sheets, text
from docuchat.corpus.types import DEFAULT_MAX_BYTES, ParsedDocument
from docuchat.errors import (
    CorruptDocument,
    EmptyDocument,
    FileTooLarge,
    IngestError,
    ParseLimitExceeded,
    UnsupportedFileType,
)

PageProgress = Callable[[int, int], None]
"""Called as ``progress(page, pages)`` after each page read by OCR."""
Parser = Callable[[bytes, str, PageProgress | None], ParsedDocument]


def _without_pages(parse: Callable[[bytes, str], ParsedDocument]) -> Parser:
    """A parser of a format that is never read by OCR (it reports no progress)."""
    return lambda data, stem, _: parse(data, stem)


_PARSERS: dict[str, Parser] = {
    ".pdf": pdf.parse,
    ".png": image.parse,
    ".jpg": image.parse,
    ".jpeg": image.parse,
    ".tif": image.parse,
    ".tiff": image.parse,
    ".docx": _without_pages(docx.parse),
    ".pptx": _without_pages(pptx.parse),
    ".xlsx": _without_pages(sheets.parse_xlsx),
    ".csv": _without_pages(sheets.parse_csv),
    ".epub": _without_pages(epub.parse),
    ".eml": _without_pages(eml.parse),
    ".html": _without_pages(html.parse),
    ".htm": _without_pages(html.parse),
    ".md": _without_pages(markdown.parse),
    ".markdown": _without_pages(markdown.parse),
    ".txt": _without_pages(text.parse),
}
SUPPORTED_SUFFIXES = frozenset(_PARSERS)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "SUPPORTED_SUFFIXES",
    "PageProgress",
    "content_hash",
    "is_supported",
    "parse_bytes",
    "parse_file",
]


def content_hash(data: bytes) -> str:
    """SHA-256 of the file's bytes, hex: the identity used to store a file once."""
    return hashlib.sha256(data).hexdigest()


def parse_file(path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> ParsedDocument:
    """Parse a file on disk; its size is checked before anything is read."""
    _parser_for(path.name)
    try:
        _check_size(path.stat().st_size, max_bytes, str(path))
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)  # bounded even if the file grows meanwhile
    except OSError as exc:
        raise IngestError(f"cannot read the file: {exc.strerror}", path=str(path)) from exc
    return parse_bytes(data, str(path), max_bytes=max_bytes)


def parse_bytes(
    data: bytes,
    filename: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    progress: PageProgress | None = None,
) -> ParsedDocument:
    """Parse an uploaded file's bytes; ``filename`` decides the format and names the errors."""
    parser = _parser_for(filename)
    _check_size(len(data), max_bytes, filename)
    if not data or data.isspace():
        raise EmptyDocument("the file is empty", path=filename)
    try:
        return parser(data, PurePath(filename).stem, progress)
    except IngestError as exc:  # parsers know the content, not the file: name it here
        exc.path = exc.path or filename
        raise
    except MemoryError as exc:
        raise ParseLimitExceeded("the file needs too much memory to parse", path=filename) from exc
    except Exception as exc:  # a library's own error on content it could not handle
        raise CorruptDocument(
            f"the file cannot be read ({type(exc).__name__}: {str(exc)[:200]})", path=filename
        ) from exc


def is_supported(filename: str) -> bool:
    return PurePath(filename).suffix.lower() in SUPPORTED_SUFFIXES


def _parser_for(filename: str) -> Parser:
    suffix = PurePath(filename).suffix.lower()
    parser = _PARSERS.get(suffix)
    if parser is None:
        supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
        kind = f"{suffix} files are" if suffix else "files without an extension are"
        raise UnsupportedFileType(f"{kind} not supported (supported: {supported})", path=filename)
    return parser


def _check_size(size: int, max_bytes: int, filename: str) -> None:
    if size > max_bytes:
        raise FileTooLarge(
            f"the file has {size:,} bytes, more than the limit of {max_bytes:,}", path=filename
        )
