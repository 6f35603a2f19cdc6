"""A chunk that spans pages knows where each page begins, through the store to citations."""

from __future__ import annotations

from pathlib import Path

from docuchat.corpus.chunking import chunk_document
from docuchat.corpus.parse import content_hash, parse_file
from docuchat.corpus.types import ParsedDocument
from docuchat.research.citations import CitationRegistry, verify
from docuchat.research.text import sentence_spans
from docuchat.store import ChunkRecord, SQLiteStore

PDF = Path(__file__).parent / "fixtures" / "real-pdfs" / "pdflatex-4-pages.pdf"


def _page_of(doc: ParsedDocument, offset: int) -> int:
    """The page of the block holding ``offset``, or of the last block before it."""
    return max((b for b in doc.blocks if b.start <= offset), key=lambda b: b.start).page


def test_every_character_of_every_chunk_maps_to_its_blocks_page() -> None:
    doc = parse_file(PDF)
    chunks = chunk_document(doc, doc_hash=content_hash(PDF.read_bytes()))
    spanning = [chunk for chunk in chunks if chunk.page != chunk.page_end]
    assert len(spanning) >= 3  # pages 1-2, 2-3 and 3-4
    for chunk in chunks:
        assert [chunk.page_at(i) for i in range(chunk.start, chunk.end)] == [
            _page_of(doc, i) for i in range(chunk.start, chunk.end)
        ]
        assert chunk.page_at(chunk.end - 1) == chunk.page_end


def test_a_quote_cites_the_page_it_starts_on(tmp_path: Path) -> None:
    doc = parse_file(PDF)
    chunks = chunk_document(doc, doc_hash=content_hash(PDF.read_bytes()))
    store = SQLiteStore(tmp_path / "docuchat.db")
    store.add_document("ann", doc, chunks, content_hash="pdf")
    spanning = next(c for c in chunks if (c.page, c.page_end) == (1, 2))
    record = store.get_chunk("ann", spanning.id)
    assert isinstance(record, ChunkRecord)
    assert record.page_breaks == spanning.page_breaks != ()
    store.close()

    (break_at, _), *_ = record.page_breaks
    sentences = [
        record.text[s:e] for s, e in sentence_spans(record.text) if len(record.text[s:e]) > 40
    ]
    before = next(s for s in sentences if record.start + record.text.index(s) < break_at)
    after = next(s for s in sentences if record.start + record.text.index(s) > break_at)
    for sentence, page in ((before, 1), (after, 2)):
        registry = CitationRegistry()
        registry.number(record)
        (citation,) = verify(f"{sentence} [1]", registry).citations
        assert citation.verified
        assert citation.quote == sentence
        assert citation.page == page
