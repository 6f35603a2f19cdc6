"""The store interface: documents, chunks, BM25 and vector search, all scoped by owner.

Nothing here is SQL: a PostgreSQL + pgvector backend implements the same
protocol. Every read takes the owner and can only ever see that owner's rows;
an id that is unknown or belongs to someone else raises the same ``NotFound``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

from docuchat.corpus.locations import PageRegion
from docuchat.corpus.types import Chunk, ParsedDocument, PlaceSpan, page_at

AddStatus = Literal["added", "unchanged", "replaced"]
Vector = npt.NDArray[np.floating[Any]]  # any float dtype in; stored and searched as float32
MetadataValue = str | int | float | bool


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    id: str
    title: str
    source: str | None  # where it came from (a path, an upload's file name); re-ingest key
    media_type: str
    content_hash: str
    page_count: int
    chunk_count: int
    char_count: int
    metadata: Mapping[str, Any]
    added_at: str  # ISO 8601, UTC


def file_name(source: str | None) -> str:
    """The last part of a document's ``source`` or a client's file name, without its folders
    (browsers may send a path, even a Windows one); "" when unknown."""
    return PurePosixPath((source or "").replace("\\", "/")).name


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    id: str
    doc_id: str
    title: str  # the document's title
    index: int  # position of the chunk in its document
    page: int
    page_end: int
    start: int  # character offsets into the document's text
    end: int
    text: str
    # Where later pages begin inside the chunk: (offset in the document text, page).
    page_breaks: tuple[tuple[int, int], ...] = ()
    places: tuple[PlaceSpan, ...] = ()  # slides, sheet cells, sections (not for pages)
    source: str | None = None  # the document's (a path, an upload's file name)

    @property
    def file(self) -> str:
        """The name of the document's file, without its folders ("" when unknown)."""
        return file_name(self.source)

    def page_at(self, offset: int) -> int:
        """The page of the character at ``offset`` (in the document text) of this chunk."""
        return page_at(self.page, self.page_breaks, offset)


@dataclass(frozen=True, slots=True)
class AddResult:
    status: AddStatus  # "unchanged": this owner already holds the same content
    document: DocumentRecord


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result, best first; ``score`` is higher-is-better within one method."""

    chunk_id: str
    doc_id: str
    score: float


@dataclass(frozen=True, slots=True)
class TextToEmbed:
    text_hash: str  # the cache key, with the vector space
    text: str


@dataclass(frozen=True, slots=True)
class DocumentFilter:
    """Restricts a listing or a search; every given criterion must hold."""

    doc_ids: frozenset[str] | None = None
    media_types: frozenset[str] | None = None
    title_contains: str | None = None  # case-insensitive substring
    metadata: Mapping[str, MetadataValue] = field(default_factory=dict)  # key = value


class Store(Protocol):
    """Documents, their chunks and vectors, for many owners in one database."""

    def add_document(
        self,
        owner: str,
        document: ParsedDocument,
        chunks: Iterable[Chunk],
        *,
        content_hash: str,
        source: str | None = None,
        original: bytes | None = None,
    ) -> AddResult:
        """Store a document, its chunks, its page boxes and the ``original`` file's bytes
        in one transaction.

        Content this owner already holds is stored once ("unchanged"). New
        content from a ``source`` this owner already has replaces that
        document's chunks and vectors, keeping its id ("replaced"). If anything
        fails, nothing is written and the previous version stays intact.
        """
        ...

    def list_documents(
        self, owner: str, *, where: DocumentFilter | None = None
    ) -> list[DocumentRecord]:
        """The owner's documents, oldest first."""
        ...

    def get_document(self, owner: str, doc_id: str) -> DocumentRecord: ...

    def remove_document(self, owner: str, doc_id: str) -> None:
        """Remove a document with its chunks, their search entries and their vectors."""
        ...

    def document_text(self, owner: str, doc_id: str, start: int = 0, end: int | None = None) -> str:
        """A slice of the document's extracted text (the text chunk offsets point into)."""
        ...

    def document_file(self, owner: str, doc_id: str) -> bytes:
        """The original file's bytes (NotFound if the document was stored without them)."""
        ...

    def text_regions(self, owner: str, doc_id: str, start: int, end: int) -> list[PageRegion]:
        """Where the document text ``[start, end)`` is drawn: per page, one box per line
        (empty for documents without page boxes)."""
        ...

    def get_chunk(self, owner: str, chunk_id: str) -> ChunkRecord: ...

    def get_chunks(self, owner: str, chunk_ids: Sequence[str]) -> list[ChunkRecord]:
        """Chunks in the order asked; NotFound if any one is missing."""
        ...

    def search_bm25(
        self, owner: str, query: str, *, k: int = 10, where: DocumentFilter | None = None
    ) -> list[Hit]:
        """Best ``k`` chunks for the words of ``query`` (any text is safe), by BM25."""
        ...

    def search_vectors(
        self,
        owner: str,
        model: str,
        vector: Vector,
        *,
        k: int = 10,
        where: DocumentFilter | None = None,
        approximate: bool = False,
    ) -> list[Hit]:
        """Best ``k`` chunks by dot product with ``vector`` among those embedded in ``model``,
        a vector space (``Embedder.space``: any variant of one model).

        ``approximate`` trades a little recall for speed on large collections;
        small ones are always searched exactly.
        """
        ...

    def bm25_is_warm(self, owner: str) -> bool:
        """Whether a BM25 search of the owner's chunks needs no loading and little CPU.

        A caller on an event loop may then search in place instead of handing
        the search to a worker thread (a hop that, with the GIL, costs more than
        a small search). A backend that searches over the network says False.
        """
        ...

    def match_spans(
        self, owner: str, query: str, chunk_ids: Sequence[str]
    ) -> dict[str, list[tuple[int, int]]]:
        """Where the words of ``query`` occur in each chunk's text (offsets into it)."""
        ...

    def texts_to_embed(
        self, owner: str, model: str, *, batch_size: int = 64
    ) -> Iterator[list[TextToEmbed]]:
        """Distinct chunk texts of the owner with no vector in space ``model`` yet, in batches.

        Store each batch with ``put_embeddings`` before taking the next; an
        interrupted run resumes where it stopped.
        """
        ...

    def count_texts_to_embed(self, owner: str, model: str) -> int: ...

    def put_embeddings(
        self, owner: str, model: str, text_hashes: Sequence[str], vectors: Vector
    ) -> None:
        """Cache vectors (shape ``(len(text_hashes), dim)``) for texts by hash and vector space
        (``Embedder.space``: vectors are keyed by the model, not its precision)."""
        ...

    def close(self) -> None: ...
