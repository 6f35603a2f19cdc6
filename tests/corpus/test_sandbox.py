"""Parsing in the sandbox: a bomb, a crash or a stall costs one file, never the caller."""

from __future__ import annotations

import resource
from collections.abc import Iterator
from pathlib import Path

import pytest

from docuchat.corpus.parse import parse_bytes
from docuchat.corpus.sandbox import ParseSandbox
from docuchat.errors import EncryptedDocument, NotFound, ParseLimitExceeded

from .bombs import pdf_bomb
from .scans import image_pdf, render

REAL_PDFS = Path(__file__).parent / "fixtures" / "real-pdfs"
MEMORY = 192 * 1024 * 1024


@pytest.fixture(scope="module")
def sandbox() -> Iterator[ParseSandbox]:
    box = ParseSandbox(memory_bytes=MEMORY, idle_seconds=60)
    yield box
    box.close()


@pytest.fixture(scope="module")
def bomb() -> bytes:
    return pdf_bomb(400 * 1024 * 1024)  # under 1 MB on disk


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_a_pdf_bomb_fails_typed_in_the_worker_and_the_caller_keeps_its_memory(
    sandbox: ParseSandbox, bomb: bytes
) -> None:
    assert len(bomb) < 1024 * 1024
    before = _peak_rss_mib()
    with pytest.raises(ParseLimitExceeded, match="out of memory or crashed") as info:
        sandbox.parse(bomb, "bomb.pdf")
    assert info.value.path == "bomb.pdf" and info.value.reason == "exceeds the parse limits"
    assert _peak_rss_mib() - before < 64  # the 400 MB never reached this process
    # A fresh worker takes the next file.
    doc = sandbox.parse((REAL_PDFS / "crazyones-pdfa.pdf").read_bytes(), "crazy.pdf")
    assert doc.title == "The Crazy Ones"


def test_results_come_back_whole_and_errors_keep_their_type(sandbox: ParseSandbox) -> None:
    data = (REAL_PDFS / "pdflatex-4-pages.pdf").read_bytes()
    isolated, direct = sandbox.parse(data, "four.pdf"), parse_bytes(data, "four.pdf")
    assert (isolated.text, isolated.blocks, isolated.title) == (
        direct.text,
        direct.blocks,
        direct.title,
    )
    for mine, theirs in zip(isolated.boxes, direct.boxes, strict=True):
        assert (mine.spans == theirs.spans).all() and (mine.boxes == theirs.boxes).all()
    with pytest.raises(EncryptedDocument) as info:
        sandbox.parse((REAL_PDFS / "libreoffice-writer-password.pdf").read_bytes(), "locked.pdf")
    assert info.value.path == "locked.pdf"


def test_a_parse_that_stalls_is_stopped() -> None:
    scan = image_pdf([render((REAL_PDFS / "pdflatex-4-pages.pdf").read_bytes(), 0).image])
    impatient = ParseSandbox(idle_seconds=0.05)
    try:
        with pytest.raises(ParseLimitExceeded, match=r"no answer within 0\.05 s"):
            impatient.parse(scan, "scan.pdf")
    finally:
        impatient.close()


def test_ocr_progress_comes_back_page_by_page(sandbox: ParseSandbox) -> None:
    original = (REAL_PDFS / "google-doc-document.pdf").read_bytes()
    scan = image_pdf([render(original, 0, dpi=150).image] * 2, dpi=150)
    pages: list[tuple[int, int]] = []
    doc = sandbox.parse(scan, "scan.pdf", progress=lambda *p: pages.append(p))
    assert pages == [(1, 2), (2, 2)] and doc.page_count == 2


def test_pages_render_in_the_worker(sandbox: ParseSandbox) -> None:
    from io import BytesIO

    from PIL import Image

    data = (REAL_PDFS / "pdflatex-4-pages.pdf").read_bytes()
    png = sandbox.render(data, "application/pdf", 2, 600)
    image = Image.open(BytesIO(png))
    assert image.format == "PNG" and image.width == 600
    assert image.height == pytest.approx(600 * 841.89 / 595.28, abs=2)
    with pytest.raises(NotFound, match="no page 5"):
        sandbox.render(data, "application/pdf", 5, 600)
