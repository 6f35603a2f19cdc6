"""PDF parsers compared on the real PDFs: ``python bench/pdf_parsers.py [--repeat N] [--json]``.

Candidates: pypdfium2 (PDFium, C++), pypdf (pure Python), pdfplumber (pdfminer.six,
pure Python). For each one, on the 24 real PDFs in tests/corpus/fixtures/real-pdfs:

- robustness: files with the right outcome (the page count files.json gives, or a
  refusal for the password-protected file), and exceptions that were not a clean
  refusal;
- quality: how many of a set of probe passages (hyphenation across lines, two
  columns, word spacing, right-to-left script, forms, ...) appear in the text
  after the normalisation docuchat applies to every parser's output (NFKC,
  PDFium's hyphen marker dropped, whitespace collapsed);
- speed: pages per second over all readable fixtures (many small files, so
  opening costs count) and over one long document made by appending their
  pages ten times, best of ``--repeat`` runs.

Finally the same speeds for docuchat's own ``parse_bytes`` (pypdfium2 plus
paragraphs, cleaning and offsets), the figure ingestion actually gets.
Needs the ``bench`` extra (pypdf, pdfplumber).
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import re
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pdfplumber
import pypdf
import pypdfium2 as pdfium

from docuchat.corpus.parse import parse_bytes
from docuchat.errors import EmptyDocument

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "corpus" / "fixtures" / "real-pdfs"
LONG_DOCUMENT_COPIES = 10

# (file, passage, what it tests): passages read off the rendered pages.
PROBES = [
    (
        "minimal-document.pdf",
        "no sea takimata sanctus est Lorem ipsum dolor sit amet. Lorem ipsum",
        "word hyphenated at a line end",
    ),
    (
        "multicolumn.pdf",
        "Nam arcu libero, nonummy eget, consectetuer id, vulputate a, magna.",
        "word hyphenated at a line end in a column",
    ),
    (
        "multicolumn.pdf",
        "Ut purus elit, vestibulum ut, placerat ac, adipiscing vitae, felis.",
        "a column read line after line",
    ),
    (
        "multicolumn.pdf",
        "This is a sample document with two columns filled with Lorem Ipsum text.",
        "columns not interleaved",
    ),
    (
        "pdflatex-4-pages.pdf",
        "Is there no information? Is there a difference between this text and some nonsense",
        "word spacing",
    ),
    (
        "pdflatex-image.pdf",
        "Lorem ipsum dolor sit amet, consetetur sadipscing elitr",
        "word spacing next to an image",
    ),
    ("crazyones-pdfa.pdf", "The misfits. The rebels.", "ligature fi"),
    ("crazyones-pdfa.pdf", "see things differently", "ligature ff"),
    ("habibi.pdf", "حَبيبي habibi", "right-to-left script in logical order"),
    (
        "google-doc-document.pdf",
        "Special cases aren't special enough to break the rules.",
        "Google Docs text",
    ),
    ("libreoffice-form.pdf", "Agree to privacy policy", "form labels"),
]


def _pdfium_pages(data: bytes) -> list[str]:
    document = pdfium.PdfDocument(data)
    try:
        pages = []
        for index in range(len(document)):
            page = document[index]
            text_page = page.get_textpage()
            pages.append(text_page.get_text_range())
            text_page.close()
            page.close()
        return pages
    finally:
        document.close()


def _pypdf_pages(data: bytes) -> list[str]:
    reader = pypdf.PdfReader(io.BytesIO(data))
    if reader.is_encrypted:
        raise PermissionError("encrypted")
    return [page.extract_text() or "" for page in reader.pages]


def _pdfplumber_pages(data: bytes) -> list[str]:
    with pdfplumber.open(io.BytesIO(data)) as document:
        return [page.extract_text() or "" for page in document.pages]


PARSERS: dict[str, Callable[[bytes], list[str]]] = {
    "pypdfium2": _pdfium_pages,
    "pypdf": _pypdf_pages,
    "pdfplumber": _pdfplumber_pages,
}


@dataclass
class Result:
    parser: str
    right_outcome: int
    files: int
    crashes: list[str]
    probes_missed: list[str]
    pages_per_s_files: float
    pages_per_s_long: float


@dataclass
class Corpus:
    files: dict[str, bytes]
    entries: dict[str, dict[str, Any]]  # files.json by file name
    readable: list[str]  # all but the password-protected file
    readable_pages: int
    long_pdf: bytes
    long_pages: int

    @classmethod
    def load(cls) -> Corpus:
        listed = json.loads((FIXTURES / "files.json").read_text())["data"]
        entries = {Path(entry["path"]).name: entry for entry in listed}
        files = {path.name: path.read_bytes() for path in sorted(FIXTURES.glob("*.pdf"))}
        readable = [name for name in files if not entries[name]["encrypted"]]
        writer = pypdf.PdfWriter()
        for _ in range(LONG_DOCUMENT_COPIES):
            for name in readable:
                writer.append(pypdf.PdfReader(io.BytesIO(files[name])))
        buffer = io.BytesIO()
        writer.write(buffer)
        return cls(
            files=files,
            entries=entries,
            readable=readable,
            readable_pages=sum(entries[name]["pages"] for name in readable),
            long_pdf=buffer.getvalue(),
            long_pages=len(writer.pages),
        )


def _normalised(pages: list[str]) -> str:
    text = unicodedata.normalize("NFKC", "\n".join(pages))
    return " ".join(re.sub(r"\ufffe\s*", "", text).split())


def _speeds(
    read: Callable[[bytes, str], object], corpus: Corpus, repeat: int
) -> tuple[float, float]:
    """Pages per second, best of ``repeat``: over the fixtures, then over the long document."""

    def best_rate(pages: int, work: Callable[[], object]) -> float:
        best = float("inf")
        for _ in range(repeat):
            started = time.perf_counter()
            work()
            best = min(best, time.perf_counter() - started)
        return pages / best

    return (
        best_rate(
            corpus.readable_pages, lambda: [read(corpus.files[n], n) for n in corpus.readable]
        ),
        best_rate(corpus.long_pages, lambda: read(corpus.long_pdf, "long.pdf")),
    )


def _assess(
    parser: str, extract: Callable[[bytes], list[str]], corpus: Corpus, repeat: int
) -> Result:
    right, crashes, texts = 0, [], {}
    for name, data in corpus.files.items():
        encrypted = corpus.entries[name]["encrypted"]
        try:
            pages = extract(data)
        except Exception as exc:  # a benchmark records every failure, whatever its type
            right += encrypted
            if not encrypted:
                crashes.append(f"{name}: {type(exc).__name__}")
            continue
        right += len(pages) == corpus.entries[name]["pages"] and not encrypted
        texts[name] = _normalised(pages)
    files_rate, long_rate = _speeds(lambda data, _name: extract(data), corpus, repeat)
    return Result(
        parser=parser,
        right_outcome=right,
        files=len(corpus.files),
        crashes=crashes,
        probes_missed=[what for name, text, what in PROBES if text not in texts.get(name, "")],
        pages_per_s_files=files_rate,
        pages_per_s_long=long_rate,
    )


def _parse_or_refuse(data: bytes, name: str) -> None:
    try:
        parse_bytes(data, name)
    except EmptyDocument:  # the image-only fixtures: refused, but only after reading them
        return


def measure(repeat: int) -> tuple[list[Result], dict[str, float]]:
    corpus = Corpus.load()
    results = [_assess(name, extract, corpus, repeat) for name, extract in PARSERS.items()]
    files_rate, long_rate = _speeds(_parse_or_refuse, corpus, repeat)
    pipeline = {
        "pages_per_s_files": files_rate,
        "pages_per_s_long": long_rate,
        "long_document_pages": corpus.long_pages,
        "fixture_pages": corpus.readable_pages,
    }
    return results, pipeline


def _table(results: list[Result], pipeline: dict[str, float]) -> str:
    lines = [
        "| parser | right outcome | probe passages found | pages/s (24 files) "
        f"| pages/s ({int(pipeline['long_document_pages'])}-page document) |",
        "|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r.parser} | {r.right_outcome}/{r.files} "
            f"| {len(PROBES) - len(r.probes_missed)}/{len(PROBES)} "
            f"| {r.pages_per_s_files:,.0f} | {r.pages_per_s_long:,.0f} |"
        )
    lines.append(
        f"| docuchat `parse_bytes` (pypdfium2 + paragraphs, offsets) | | "
        f"| {pipeline['pages_per_s_files']:,.0f} | {pipeline['pages_per_s_long']:,.0f} |"
    )
    lines.append("")
    for r in results:
        problems = [f"missed: {what}" for what in r.probes_missed] + r.crashes
        lines.append(f"- {r.parser}: {'; '.join(problems) or 'no misses, no crashes'}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per measurement")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)  # pypdf and pdfminer warn about every odd font
    results, pipeline = measure(args.repeat)
    if args.json:
        print(json.dumps({"parsers": [r.__dict__ for r in results], "docuchat": pipeline}))
    else:
        print(_table(results, pipeline))


if __name__ == "__main__":
    main()
