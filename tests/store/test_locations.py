"""Where chunks come from, kept by the store: page boxes, places and the original file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from docuchat.corpus.chunking import chunk_document
from docuchat.corpus.locations import quote_regions
from docuchat.corpus.parse import content_hash, parse_bytes
from docuchat.corpus.types import SheetCells
from docuchat.errors import NotFound
from docuchat.store import ChunkRecord, Store

from .conftest import make_doc

PDF = Path(__file__).parents[1] / "corpus" / "fixtures" / "real-pdfs" / "pdflatex-4-pages.pdf"
CSV = b'Department,Budget 2026\nFacilities,"184,000"\nMarketing,"92,500"\nResearch,"410,000"\n'


def _add(store: Store, owner: str, data: bytes, name: str, source: str | None = None) -> str:
    doc = parse_bytes(data, name)
    digest = content_hash(data)
    result = store.add_document(
        owner, doc, chunk_document(doc, doc_hash=digest), content_hash=digest,
        source=source, original=data,
    )  # fmt: skip
    return result.document.id


def test_page_boxes_read_back_as_parsed_and_only_for_their_owner(store: Store) -> None:
    data = PDF.read_bytes()
    doc = parse_bytes(data, "four.pdf")
    doc_id = _add(store, "ann", data, "four.pdf")
    # A span across the break between pages 1 and 2: one region per page, as computed
    # from the parsed boxes (stored in 1/65535ths of the page).
    page_two = doc.boxes[1].spans[0][0]
    start, end = int(page_two) - 40, int(page_two) + 40
    stored = store.text_regions("ann", doc_id, start, end)
    parsed = quote_regions(doc.boxes, start, end)
    assert [r.page for r in stored] == [1, 2]
    for got, want in zip(stored, parsed, strict=True):
        assert np.allclose(got.boxes, want.boxes, atol=2e-5)
    assert store.text_regions("ann", doc_id, 10**7, 10**7 + 5) == []
    with pytest.raises(NotFound):
        store.text_regions("bob", doc_id, start, end)


def test_the_original_file_is_kept_and_only_its_owner_reads_it(store: Store) -> None:
    data = PDF.read_bytes()
    doc_id = _add(store, "ann", data, "four.pdf")
    assert store.document_file("ann", doc_id) == data
    with pytest.raises(NotFound):
        store.document_file("bob", doc_id)
    text_only = make_doc("No file was kept for this one.").add(store, "ann").document
    with pytest.raises(NotFound, match="no file"):
        store.document_file("ann", text_only.id)


def test_replacing_a_document_replaces_its_boxes_and_file_and_removing_drops_them(
    store: Store,
) -> None:
    pdf = PDF.read_bytes()
    doc_id = _add(store, "ann", pdf, "report.pdf", source="report")
    assert store.text_regions("ann", doc_id, 0, 20)
    again = _add(store, "ann", CSV, "report.csv", source="report")
    assert again == doc_id
    assert store.document_file("ann", doc_id) == CSV
    assert store.text_regions("ann", doc_id, 0, 20) == []  # a CSV has no page boxes
    store.remove_document("ann", doc_id)
    with pytest.raises(NotFound):
        store.document_file("ann", doc_id)


def test_chunks_keep_the_cells_their_rows_come_from(store: Store) -> None:
    doc_id = _add(store, "ann", CSV, "budget.csv")
    (chunk,) = _chunks(store, "ann", doc_id)
    places = [span.place for span in chunk.places]
    assert places == [
        SheetCells("budget", 1, 1, 1, 2),
        SheetCells("budget", 2, 2, 1, 2),
        SheetCells("budget", 3, 3, 1, 2),
        SheetCells("budget", 4, 4, 1, 2),
    ]
    facilities = chunk.text.index("Facilities | 184,000")
    (span,) = [s for s in chunk.places if s.start <= chunk.start + facilities < s.end]
    assert isinstance(span.place, SheetCells) and span.place.label() == "budget!A2:B2"


def _chunks(store: Store, owner: str, doc_id: str) -> list[ChunkRecord]:
    record = store.get_document(owner, doc_id)
    ids = [f"{record.content_hash[:12]}-{i:04d}" for i in range(record.chunk_count)]
    return store.get_chunks(owner, ids)
