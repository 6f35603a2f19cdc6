"""Bytes to text for the text-based formats (plain text, Markdown, HTML).

Order: byte-order mark, then the encoding the file declares (HTML ``<meta>``),
then strict UTF-8, then charset-normalizer's best guess (windows-1252 on
ties). Binary content posing as text (a renamed PDF, an image, anything with
NUL bytes or many control characters) is rejected as an unsupported file type.
"""

from __future__ import annotations

import codecs
import re

from charset_normalizer import from_bytes

from docuchat.errors import UnsupportedFileType

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16 LE, whose BOM is its prefix
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_SIGNATURES = (
    (b"%PDF-", "a PDF"),
    (b"PK\x03\x04", "a ZIP archive (DOCX, XLSX, ...)"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a legacy Office file"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"\x1f\x8b", "gzip data"),
    (b"\x7fELF", "an executable"),
)
# Text codecs of Python that are no character set a file could be written in.
_NOT_CHARSETS = frozenset({"punycode", "idna", "raw-unicode-escape", "unicode-escape", "undefined"})
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_SAMPLE = 65536
_MAX_CONTROL_SHARE = 0.01


def decode_text(data: bytes, *, declared: str | None = None) -> tuple[str, str]:
    """Decode ``data`` and return ``(text, encoding used)``; raise if it is not text."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return _checked(data.decode(encoding, errors="replace")), encoding
    for signature, kind in _SIGNATURES:
        if data.startswith(signature):
            raise UnsupportedFileType(f"the content is {kind}, not text")
    if b"\x00" in data:
        raise UnsupportedFileType("the content is binary (it contains NUL bytes), not text")
    for candidate in (text_codec(declared), "utf-8"):
        if candidate:
            try:
                return _checked(data.decode(candidate)), candidate
            except UnicodeError:  # also punycode's and idna's, which are not decode errors
                continue
    matches = from_bytes(data)
    guess = matches.best()
    if guess is None:
        raise UnsupportedFileType("the content is not text in any known encoding")
    # Short Western texts fit several single-byte code pages equally well; the
    # likeliest by far is windows-1252, so it wins ties.
    western = next((match for match in matches if match.encoding == "cp1252"), None)
    if (
        western is not None
        and western.chaos <= guess.chaos
        and western.coherence >= guess.coherence
    ):
        guess = western
    return _checked(str(guess)), guess.encoding


def text_codec(name: str | None) -> str | None:
    """The character set a file declares, if Python knows it as one: unknown names and
    bytes-to-bytes codecs (rot13, hex, base64, zlib, ...) give None, never an error."""
    if not name:
        return None
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError):
        return None
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_CHARSETS:
        return None
    # As browsers do: a page labelled Latin-1 or ASCII is really windows-1252.
    return "cp1252" if info.name in ("latin-1", "ascii") else info.name


def _checked(text: str) -> str:
    sample = text[:_SAMPLE]
    if len(_CONTROL.findall(sample)) > _MAX_CONTROL_SHARE * max(len(sample), 1):
        raise UnsupportedFileType("the content is binary (many control characters), not text")
    return text
