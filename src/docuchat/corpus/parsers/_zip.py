"""Zip-based formats (DOCX, PPTX, XLSX, EPUB) opened under a decompression budget.

The archive is checked before anything is decompressed: the sizes its entries
declare, in all and each against its compressed size. Reading then counts the
bytes actually decompressed, so a forged size header cannot get past the budget
(zipfile stops at the declared size, and the CRC check fails).
"""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from io import BytesIO
from xml.etree import ElementTree

from docuchat.errors import ArchiveBomb, CorruptDocument, UnsupportedFileType

MAX_EXPANDED_BYTES = 256 * 1024 * 1024  # all entries together, as declared and as read
MAX_RATIO = 100  # uncompressed : compressed, for any entry larger than RATIO_FLOOR
# Smaller entries can do no harm, and a long, repetitive document.xml may pass 100:1.
RATIO_FLOOR = 10 * 1024 * 1024
MAX_ENTRIES = 10_000
_READ_SIZE = 1024 * 1024
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
DAMAGED = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, KeyError)


class GuardedArchive:
    """Reads entries of a checked archive within the decompression budget."""

    def __init__(self, archive: zipfile.ZipFile, kind: str) -> None:
        entries = archive.infolist()
        if len(entries) > MAX_ENTRIES:
            raise ArchiveBomb(f"the {kind} has {len(entries):,} entries (limit {MAX_ENTRIES:,})")
        declared = sum(entry.file_size for entry in entries)
        if declared > MAX_EXPANDED_BYTES:
            raise ArchiveBomb(
                f"the {kind} would expand to {declared:,} bytes (limit {MAX_EXPANDED_BYTES:,})"
            )
        for entry in entries:
            if entry.file_size > RATIO_FLOOR and entry.file_size > MAX_RATIO * entry.compress_size:
                raise ArchiveBomb(
                    f"the {kind} entry {entry.filename!r} expands {entry.compress_size:,} bytes "
                    f"to {entry.file_size:,} (more than {MAX_RATIO}:1)"
                )
        self.kind = kind
        self._archive = archive
        self._budget = MAX_EXPANDED_BYTES

    def names(self) -> list[str]:
        return self._archive.namelist()

    def read(self, name: str) -> bytes | None:
        """An entry's bytes, or None if absent. Counts what is actually decompressed,
        so that no size header, true or not, lets reading run past the budget."""
        try:
            entry = self._archive.getinfo(name)
        except KeyError:
            return None
        chunks = []
        with self._archive.open(entry) as stream:
            while chunk := stream.read(_READ_SIZE):
                self._budget -= len(chunk)
                if self._budget < 0:
                    raise ArchiveBomb(
                        f"the {self.kind} expands beyond {MAX_EXPANDED_BYTES:,} bytes"
                    )
                chunks.append(chunk)
        return b"".join(chunks)

    def xml(self, name: str, *, doctype: bool = False) -> ElementTree.Element | None:
        data = self.read(name)
        if data is None:
            return None
        check_markup(data, f"the {self.kind} part {name}", doctype=doctype)
        return ElementTree.fromstring(data)

    def check_parts(self) -> None:
        """Refuse any XML part declaring a DOCTYPE, before a library parses the package."""
        for name in self.names():
            if name.endswith((".xml", ".rels")):
                check_markup(self.read(name) or b"", f"the {self.kind} part {name}")


def check_markup(data: bytes, what: str, *, doctype: bool = False) -> None:
    """Refuse entity declarations (expansion bombs), and DOCTYPEs unless the format has
    them (XHTML does; Office packages never declare one)."""
    if b"<!ENTITY" in data or (not doctype and b"<!DOCTYPE" in data):
        raise CorruptDocument(f"{what} declares a DOCTYPE or entities")


@contextmanager
def open_archive(data: bytes, kind: str) -> Iterator[GuardedArchive]:
    """The archive, checked; damage becomes ``CorruptDocument`` inside the block too."""
    if not data.startswith(ZIP_MAGIC):
        raise UnsupportedFileType(f"the content is not a {kind} (not a zip archive)")
    try:
        with zipfile.ZipFile(BytesIO(data)) as archive:
            yield GuardedArchive(archive, kind)
    except DAMAGED as exc:
        raise CorruptDocument(f"the {kind} archive is damaged ({exc})") from exc
    except ElementTree.ParseError as exc:
        raise CorruptDocument(f"the {kind} contains malformed XML ({exc})") from exc


def check_package(data: bytes, kind: str, main_part: str, *, not_it: str) -> None:
    """Before a library reads an Office package from ``data``: a zip within the budget that
    holds ``main_part`` (else ``UnsupportedFileType(not_it)``), no XML part with a DOCTYPE."""
    with open_archive(data, kind) as archive:
        if main_part not in archive.names():
            raise UnsupportedFileType(not_it)
        archive.check_parts()
