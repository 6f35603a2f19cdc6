"""The document and chunk rows both backends write and read, in neutral Python values.

Each backend encodes only what its column types differ on: metadata (JSON text
or ``jsonb``), the time added (ISO text or ``timestamptz``), page breaks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from docuchat.corpus.locations import encode_boxes, page_span, place_from_json, place_json
from docuchat.corpus.types import Chunk, ParsedDocument, PlaceSpan
from docuchat.store.base import ChunkRecord, DocumentRecord

DOCUMENT_COLUMNS = (
    "d.id, d.title, d.source, d.media_type, d.content_hash, d.page_count, d.chunk_count,"
    " d.char_count, d.metadata, d.added_at"
)
CHUNK_COLUMNS = (
    'c.id, d.id, d.title, c.position, c.page, c.page_end, c.start, c."end", c.text,'
    " c.page_breaks, c.places, d.source"
)


def document_values(
    owner: str, document: ParsedDocument, content_hash: str, source: str | None
) -> dict[str, Any]:
    """A new document row (no chunks yet); ``metadata`` a dict, ``added_at`` a datetime."""
    return {
        "owner": owner,
        "title": document.title,
        "source": source,
        "media_type": document.media_type,
        "content_hash": content_hash,
        "page_count": document.page_count,
        "chunk_count": 0,
        "char_count": len(document.text),
        "text": document.text,
        "metadata": dict(document.metadata),
        "added_at": datetime.now(UTC),
    }


def document_record(
    row: Sequence[Any], *, metadata: Mapping[str, Any], added_at: str
) -> DocumentRecord:
    """A row of ``DOCUMENT_COLUMNS``, with its last two values decoded by the backend."""
    doc_id, title, source, media_type, content_hash, pages, chunks, chars = row[:8]
    return DocumentRecord(
        id=doc_id,
        title=title,
        source=source,
        media_type=media_type,
        content_hash=content_hash,
        page_count=pages,
        chunk_count=chunks,
        char_count=chars,
        metadata=metadata,
        added_at=added_at,
    )


def chunk_record(
    row: Sequence[Any], page_breaks: Iterable[Sequence[int]], places: Iterable[Sequence[Any]]
) -> ChunkRecord:
    """A row of ``CHUNK_COLUMNS``, with its page breaks and places decoded by the backend."""
    chunk_id, doc_id, title, index, page, page_end, start, end, text = row[:9]
    source = row[11]  # after the page breaks and places, which the backend decodes
    breaks = tuple((offset, break_page) for offset, break_page in page_breaks)
    spans = tuple(PlaceSpan(first, last, place_from_json(place)) for first, last, place in places)
    return ChunkRecord(
        chunk_id, doc_id, title, index, page, page_end, start, end, text, breaks, spans, source
    )


def places_value(chunk: Chunk) -> list[list[Any]]:
    """A chunk's places as stored (JSON): ``[[start, end, place], ...]``."""
    return [[span.start, span.end, place_json(span.place)] for span in chunk.places]


def page_box_rows(document: ParsedDocument) -> list[tuple[int, int, int, bytes]]:
    """``(page, start, end, boxes)`` per page with boxes: the page's offsets and its
    boxes in their compact stored form."""
    return [(page.page, *page_span(page), encode_boxes(page)) for page in document.boxes]
