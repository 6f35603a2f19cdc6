"""Ingest throughput per format, and what locations and originals cost in the store.

``python bench/ingest_formats.py [--repeat N] [--json]``

Throughput: files of each format made with the format's own writers (as the tests
make them, larger), each ingested whole (sandboxed parse, chunks, store with its
original; no embeddings) into a fresh SQLite store; best of ``--repeat`` runs;
reported per page (PDF pages, slides, sheets, chapters, pictures) and per MB.

Store size: the 18 text PDFs of tests/corpus/fixtures/real-pdfs ingested three
times into fresh SQLite files: without page boxes or originals, with page boxes,
and with both; the file sizes after VACUUM.
"""

from __future__ import annotations

import argparse
import io
import json
import sqlite3
import sys
import tempfile
import time
import zipfile
from dataclasses import replace
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import openpyxl
from pptx import Presentation
from pptx.util import Inches

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.corpus.scans

from tests.corpus.scans import degrade, image_pdf, render

from docuchat.corpus.chunking import chunk_document
from docuchat.corpus.ingest import ingest_data
from docuchat.corpus.parse import content_hash, parse_bytes
from docuchat.store import SQLiteStore

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "fixtures" / "real-pdfs"
SENTENCE = "The {n}th office of Larkspur Analytics opens at nine and keeps {n} desks for visitors."


def _pdf() -> tuple[bytes, int]:
    data = (FIXTURES / "pdflatex-4-pages.pdf").read_bytes()
    return data, 4


def _pptx(slides: int = 40) -> tuple[bytes, int]:
    deck = Presentation()
    for n in range(slides):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = f"Office {n}"
        slide.placeholders[1].text = "\n".join(SENTENCE.format(n=n + k) for k in range(5))
        table = slide.shapes.add_table(4, 3, Inches(1), Inches(5), Inches(6), Inches(1)).table
        for row in range(4):
            for column in range(3):
                table.cell(row, column).text = f"r{row}c{column} {n}"
        slide.notes_slide.notes_text_frame.text = SENTENCE.format(n=n)
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue(), slides


def _xlsx(sheets: int = 5, rows: int = 2000) -> tuple[bytes, int]:
    book = openpyxl.Workbook()
    for s in range(sheets):
        sheet = book.active if s == 0 else book.create_sheet()
        assert sheet is not None
        sheet.title = f"Budget {2020 + s}"
        sheet.append(["Department", "Owner", "Budget", "Spent"])
        for n in range(rows):
            sheet.append([f"Department {n}", f"Owner {n}", 1000 * n, 750.5 * n])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue(), sheets


def _csv(rows: int = 10_000) -> tuple[bytes, int]:
    lines = ["Department,Owner,Budget"] + [
        f"Department {n},Owner {n},{1000 * n}" for n in range(rows)
    ]
    return "\n".join(lines).encode(), 1


def _epub(chapters: int = 30) -> tuple[bytes, int]:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr(
            "META-INF/container.xml",
            '<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
            '<rootfile full-path="content.opf"/></rootfiles></container>',
        )
        items = "".join(
            f'<item id="c{i}" href="c{i}.xhtml" media-type="application/xhtml+xml"/>'
            for i in range(chapters)
        )
        spine = "".join(f'<itemref idref="c{i}"/>' for i in range(chapters))
        book.writestr(
            "content.opf",
            f'<package xmlns="http://www.idpf.org/2007/opf"><manifest>{items}</manifest>'
            f"<spine>{spine}</spine></package>",
        )
        for i in range(chapters):
            paragraphs = "".join(f"<p>{SENTENCE.format(n=i * 40 + k)}</p>" for k in range(40))
            book.writestr(
                f"c{i}.xhtml", f"<html><body><h1>Chapter {i}</h1>{paragraphs}</body></html>"
            )
    return out.getvalue(), chapters


def _eml() -> tuple[bytes, int]:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "a@example.org", "b@example.org", "Offices"
    message.set_content("\n\n".join(SENTENCE.format(n=n) for n in range(200)))
    return message.as_bytes(), 1


def _scan_png() -> tuple[bytes, int]:
    scan = render((FIXTURES / "google-doc-document.pdf").read_bytes(), 0)
    out = io.BytesIO()
    degrade(scan.image, angle=0.5).save(out, format="PNG")
    return out.getvalue(), 1


def _scan_pdf() -> tuple[bytes, int]:
    data = (FIXTURES / "pdflatex-4-pages.pdf").read_bytes()
    return image_pdf([degrade(render(data, i).image, seed=i) for i in range(2)]), 2


FORMATS = {
    "PDF (text layer)": ("guide.pdf", _pdf),
    "PDF (scanned, OCR)": ("scan.pdf", _scan_pdf),
    "PNG (OCR)": ("scan.png", _scan_png),
    "PPTX": ("deck.pptx", _pptx),
    "XLSX": ("book.xlsx", _xlsx),
    "CSV": ("table.csv", _csv),
    "EPUB": ("book.epub", _epub),
    "EML": ("mail.eml", _eml),
}


def throughput(repeat: int) -> list[dict[str, Any]]:
    rows = []
    for label, (name, make) in FORMATS.items():
        data, pages = make()
        best = float("inf")
        chunks = 0
        for _ in range(repeat):
            with tempfile.TemporaryDirectory() as folder:
                store = SQLiteStore(Path(folder) / "bench.db")
                start = time.perf_counter()
                report = ingest_data(store, "bench", data, name, source=name)
                best = min(best, time.perf_counter() - start)
                chunks = sum(f.chunks for f in report.ingested)
                store.close()
        rows.append(
            {
                "format": label,
                "bytes": len(data),
                "pages": pages,
                "chunks": chunks,
                "seconds": round(best, 3),
                "pages_per_s": round(pages / best, 2),
                "mb_per_s": round(len(data) / best / 1e6, 2),
            }
        )
    return rows


def store_sizes() -> dict[str, Any]:
    files = sorted(FIXTURES.glob("*.pdf"))
    parsed = []
    for path in files:
        data = path.read_bytes()
        try:
            parsed.append((path.name, data, parse_bytes(data, path.name)))
        except Exception:  # the password-protected and image-only ones
            continue
    sizes = {}
    for variant in ("text only", "+ page boxes", "+ page boxes + originals"):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "size.db"
            store = SQLiteStore(path)
            for name, data, doc in parsed:
                kept = doc if variant != "text only" else replace(doc, boxes=())
                digest = content_hash(data)
                store.add_document(
                    "bench", kept, chunk_document(kept, doc_hash=digest), content_hash=digest,
                    source=name, original=data if variant.endswith("originals") else None,
                )  # fmt: skip
            store.close()
            with sqlite3.connect(path) as db:
                db.execute("VACUUM")
            sizes[variant] = path.stat().st_size
    pages = sum(doc.page_count for _, _, doc in parsed)
    pieces = sum(len(b.spans) for _, _, doc in parsed for b in doc.boxes)
    return {
        "documents": len(parsed),
        "pages": pages,
        "word_pieces": pieces,
        "bytes": sizes,
        "originals_bytes": sum(len(data) for _, data, _ in parsed),
        "box_bytes_per_page": round((sizes["+ page boxes"] - sizes["text only"]) / pages),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows, sizes = throughput(args.repeat), store_sizes()
    if args.json:
        print(json.dumps({"throughput": rows, "store": sizes}, indent=2))
        return
    print("| format | file | pages | chunks | seconds | pages/s | MB/s |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['format']} | {row['bytes'] / 1e3:,.0f} kB | {row['pages']} | {row['chunks']}"
            f" | {row['seconds']} | {row['pages_per_s']} | {row['mb_per_s']} |"
        )
    print()
    print(json.dumps(sizes, indent=2))


if __name__ == "__main__":
    main()
