"""Files in, ``ParsedDocument`` out: the one entry point for every format.

The file's suffix picks the parser; the parser then checks that the content
really is of that type. Every failure is an :class:`~docuchat.errors.IngestError`
subclass carrying the file's name in ``path``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path, PurePath

from docuchat.corpus.parsers import docx, html, markdown, pdf, text
from docuchat.corpus.types import ParsedDocument
from docuchat.errors import EmptyDocument, FileTooLarge, IngestError, UnsupportedFileType

DEFAULT_MAX_BYTES = 50 * 1024 * 1024

_PARSERS: dict[str, Callable[[bytes, str], ParsedDocument]] = {
    ".pdf": pdf.parse,
    ".docx": docx.parse,
    ".html": html.parse,
    ".htm": html.parse,
    ".md": markdown.parse,
    ".markdown": markdown.parse,
    ".txt": text.parse,
}
SUPPORTED_SUFFIXES = frozenset(_PARSERS)

__all__ = ["DEFAULT_MAX_BYTES", "SUPPORTED_SUFFIXES", "content_hash", "parse_bytes", "parse_file"]


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
    data: bytes, filename: str, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> ParsedDocument:
    """Parse an uploaded file's bytes; ``filename`` decides the format and names the errors."""
    parser = _parser_for(filename)
    _check_size(len(data), max_bytes, filename)
    if not data or data.isspace():
        raise EmptyDocument("the file is empty", path=filename)
    try:
        return parser(data, PurePath(filename).stem)
    except IngestError as exc:  # parsers know the content, not the file: name it here
        exc.path = exc.path or filename
        raise


def _parser_for(filename: str) -> Callable[[bytes, str], ParsedDocument]:
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
