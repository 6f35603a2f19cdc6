"""The parse entry points: format by suffix, size limits, empty files, error details."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from docuchat.corpus import parse
from docuchat.corpus.parse import (
    SUPPORTED_SUFFIXES,
    content_hash,
    parse_bytes,
    parse_file,
)
from docuchat.errors import EmptyDocument, FileTooLarge, IngestError, UnsupportedFileType


def test_exported_names_are_pinned() -> None:
    assert sorted(parse.__all__) == [
        "DEFAULT_MAX_BYTES",
        "PageProgress",
        "SUPPORTED_SUFFIXES",
        "content_hash",
        "is_supported",
        "parse_bytes",
        "parse_file",
    ]


def test_supported_suffixes() -> None:
    assert {
        *(".docx", ".pptx", ".xlsx", ".csv", ".epub", ".eml"),
        *(".htm", ".html", ".markdown", ".md", ".pdf", ".txt"),
        *(".png", ".jpg", ".jpeg", ".tif", ".tiff"),
    } == SUPPORTED_SUFFIXES


def test_content_hash_is_sha256_hex() -> None:
    assert content_hash(b"handbook") == hashlib.sha256(b"handbook").hexdigest()


@pytest.mark.parametrize(
    ("name", "media_type"),
    [
        ("notes.txt", "text/plain"),
        ("NOTES.TXT", "text/plain"),
        ("notes.md", "text/markdown"),
        ("notes.markdown", "text/markdown"),
        ("notes.html", "text/html"),
        ("notes.htm", "text/html"),
    ],
)
def test_the_suffix_picks_the_parser_in_any_case(name: str, media_type: str) -> None:
    assert parse_bytes(b"Holiday: 27 days.", name).media_type == media_type


@pytest.mark.parametrize(
    "name", ["photo.gif", "slides.ppt", "legacy.doc", "README", "archive.tar.gz"]
)
def test_unsupported_extensions_are_rejected_with_the_supported_list(name: str) -> None:
    with pytest.raises(
        UnsupportedFileType, match=r"not supported \(supported: \.csv, \.docx, "
    ) as info:
        parse_bytes(b"anything", name)
    assert info.value.path == name
    assert info.value.reason == "unsupported file type"


def test_file_over_the_limit_is_refused_before_parsing(tmp_path: Path) -> None:
    target = tmp_path / "big.txt"
    target.write_bytes(b"word " * 300)
    with pytest.raises(FileTooLarge, match="1,500 bytes, more than the limit of 1,000") as info:
        parse_file(target, max_bytes=1000)
    assert info.value.path == str(target)

    with pytest.raises(FileTooLarge):
        parse_bytes(target.read_bytes(), "big.txt", max_bytes=1000)
    assert parse_file(target, max_bytes=1500).text.startswith("word word")


@pytest.mark.parametrize("content", [b"", b"  \n\t\r\n  "])
def test_empty_file_is_an_empty_document(tmp_path: Path, content: bytes) -> None:
    target = tmp_path / "empty.pdf"
    target.write_bytes(content)
    with pytest.raises(EmptyDocument, match="the file is empty") as info:
        parse_file(target)
    assert info.value.path == str(target)
    assert info.value.reason == "empty document"


def test_parser_errors_name_the_file() -> None:
    with pytest.raises(UnsupportedFileType) as info:
        parse_bytes(b"not a pdf at all", "uploads/report.pdf")
    assert info.value.path == "uploads/report.pdf"


def test_missing_file_is_an_ingest_error(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="cannot read the file") as info:
        parse_file(tmp_path / "gone.md")
    assert info.value.path == str(tmp_path / "gone.md")


def test_unsupported_extension_is_refused_without_reading_the_file(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedFileType):
        parse_file(tmp_path / "does-not-exist.exe")
