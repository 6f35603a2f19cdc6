"""The SQLite store: one file, WAL, FTS5 for BM25, float32 vectors searched with NumPy."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from docuchat.corpus.locations import PageRegion
from docuchat.corpus.types import Chunk, ParsedDocument
from docuchat.errors import NotFound, StoreError
from docuchat.store import vector_index
from docuchat.store.base import (
    AddResult,
    AddStatus,
    ChunkRecord,
    DocumentFilter,
    DocumentRecord,
    Hit,
    TextToEmbed,
    Vector,
)
from docuchat.store.bm25_index import BM25Index
from docuchat.store.document_parts import DocumentParts
from docuchat.store.fts_query import match_expression, query_terms
from docuchat.store.owner_cache import OwnerCache
from docuchat.store.rows import (
    CHUNK_COLUMNS,
    DOCUMENT_COLUMNS,
    chunk_record,
    document_record,
    document_values,
    page_box_rows,
    places_value,
)
from docuchat.store.sqlite_bm25 import (
    clear_scratch,
    create_scratch_tables,
    fill_scratch,
    load_bm25_index,
    query_terms_of,
)
from docuchat.store.sqlite_file import SQLiteFile

# BM25 column weights (title, text). Equal: on SciFact a title weight of 0.5 to 3 moved
# nDCG@10 by under 0.01, too little to tune on one collection (docs/readme/store.md).
BM25_WEIGHTS = (1.0, 1.0)
# Owners with up to this many chunks get an in-memory BM25 index (about 1 KB per
# chunk); larger ones are ranked by FTS5's bm25() in SQL.
MEMORY_BM25_MAX_CHUNKS = 200_000
# Up to this many chunks a warm in-memory BM25 search takes a few milliseconds at most
# (0.5 ms p50 at SciFact's 10,576), little enough to run in place on an event loop.
WARM_BM25_MAX_CHUNKS = 50_000
# Memory for each of the in-memory caches (vector matrices; BM25 indexes), least recently
# used owner out first; the newest entry stays whatever its size (1M chunks: 1.5 GB).
DEFAULT_CACHE_BYTES = 2 * 2**30
# Below this many vectors exact search is already fast; the IVF index is not built.
APPROXIMATE_MIN_VECTORS = 50_000
# IVF lists scanned per query, of about sqrt(n): 6% of them at 1M vectors (recall in
# docs/readme/store.md).
DEFAULT_NPROBE = 64
_LOAD_BATCH = 8192
_OVERFETCH = 2
_HIGHLIGHT_OPEN, _HIGHLIGHT_CLOSE = "\x02", "\x03"
_MARKED_RUN = re.compile(f"{_HIGHLIGHT_OPEN}([^{_HIGHLIGHT_CLOSE}]*){_HIGHLIGHT_CLOSE}")
_PARTS = DocumentParts("?")


@dataclass(frozen=True, slots=True)
class _OwnerVectors:
    """All vectors of one owner for one model, valid for one store generation.

    Rows are in chunk-key order, or in IVF list order once ``ivf`` is built.
    """

    generation: int
    ids: npt.NDArray[np.object_]  # (chunk id, document id) per row
    doc_keys: npt.NDArray[np.int64]
    matrix: vector_index.Matrix
    ivf: vector_index.IVFIndex | None = None

    @property
    def nbytes(self) -> int:
        """About the memory it holds: the arrays, and ~200 bytes per row of ids."""
        ivf = self.ivf
        index = ivf.centroids.nbytes + ivf.order.nbytes + ivf.offsets.nbytes if ivf else 0
        return self.matrix.nbytes + self.doc_keys.nbytes + 200 * len(self.ids) + index


@dataclass(frozen=True, slots=True)
class _TooLarge:
    """An owner with too many chunks for an in-memory BM25 index, at one text generation."""

    generation: int
    nbytes: int = 0


class SQLiteStore:
    """The default store. Safe to share between threads: writes take turns, reads do not
    wait for them.

    ``nprobe`` and ``approximate_min_vectors`` tune approximate vector search;
    ``cache_bytes`` bounds the memory of the (owner, model) vector matrices, and
    separately of the owners' BM25 indexes, kept between searches;
    ``memory_bm25_max_chunks`` is the largest owner given an in-memory BM25 index.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        nprobe: int = DEFAULT_NPROBE,
        approximate_min_vectors: int = APPROXIMATE_MIN_VECTORS,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
        memory_bm25_max_chunks: int = MEMORY_BM25_MAX_CHUNKS,
    ) -> None:
        self.path = Path(path)
        self.nprobe = nprobe
        self.approximate_min_vectors = approximate_min_vectors
        self.memory_bm25_max_chunks = memory_bm25_max_chunks
        self._vectors: OwnerCache[tuple[str, str], _OwnerVectors] = OwnerCache(cache_bytes)
        self._bm25: OwnerCache[str, BM25Index | _TooLarge] = OwnerCache(cache_bytes)
        self._file = SQLiteFile(
            self.path,
            pragmas=("cache_size = -65536", "mmap_size = 268435456", "temp_store = MEMORY"),
            prepare_reader=create_scratch_tables,
        )
        self._read, self._write = self._file.read, self._file.write
        self.applied_migrations = self._file.applied_migrations

    def close(self) -> None:
        self._vectors.clear()
        self._bm25.clear()
        self._file.close()

    # -- documents -------------------------------------------------------

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
        with self._write() as db:
            same = db.execute(
                f"SELECT {DOCUMENT_COLUMNS} FROM documents d"
                " WHERE d.owner = ? AND d.content_hash = ?",
                (owner, content_hash),
            ).fetchone()
            if same:
                return AddResult("unchanged", _document_record(same))
            previous = (
                db.execute(
                    "SELECT key, id FROM documents WHERE owner = ? AND source = ?", (owner, source)
                ).fetchone()
                if source is not None
                else None
            )
            status: AddStatus
            if previous:
                status, (doc_key, doc_id) = "replaced", previous
                old_hashes = _delete_chunks(db, doc_key)
                _write_document(db, owner, document, content_hash, source, doc_key=doc_key)
            else:
                status, doc_id, old_hashes = "added", uuid.uuid4().hex[:16], []
                doc_key = _write_document(db, owner, document, content_hash, source, doc_id=doc_id)
            _insert_chunks(db, owner, doc_key, document, chunks)
            _write_locations(db, doc_key, document, original)
            _drop_unused_embeddings(db, owner, old_hashes)
            _bump_generation(db, owner, text=True)
            return AddResult(status, self._document(db, owner, doc_id))

    def list_documents(
        self, owner: str, *, where: DocumentFilter | None = None
    ) -> list[DocumentRecord]:
        condition, params = _filter_sql(where)
        with self._read() as db:
            rows = db.execute(
                f"SELECT {DOCUMENT_COLUMNS} FROM documents d WHERE d.owner = ?{condition}"
                " ORDER BY d.key",
                (owner, *params),
            ).fetchall()
        return [_document_record(row) for row in rows]

    def get_document(self, owner: str, doc_id: str) -> DocumentRecord:
        with self._read() as db:
            return self._document(db, owner, doc_id)

    def remove_document(self, owner: str, doc_id: str) -> None:
        with self._write() as db:
            doc_key = _PARTS.key(db, owner, doc_id)
            old_hashes = _delete_chunks(db, doc_key)
            db.execute("DELETE FROM documents WHERE key = ?", (doc_key,))
            _drop_unused_embeddings(db, owner, old_hashes)
            _bump_generation(db, owner, text=True)

    def document_text(self, owner: str, doc_id: str, start: int = 0, end: int | None = None) -> str:
        if start < 0 or (end is not None and end < start):
            raise StoreError(f"invalid text span {start}:{end}")
        with self._read() as db:
            doc_key = _PARTS.key(db, owner, doc_id)
            (text,) = db.execute(
                "SELECT substr(text, ?, coalesce(?, char_count)) FROM documents WHERE key = ?",
                (start + 1, None if end is None else end - start, doc_key),
            ).fetchone()
        return str(text)

    def document_file(self, owner: str, doc_id: str) -> bytes:
        with self._read() as db:
            return _PARTS.file(db, owner, doc_id)

    def text_regions(self, owner: str, doc_id: str, start: int, end: int) -> list[PageRegion]:
        with self._read() as db:
            return _PARTS.regions(db, owner, doc_id, start, end)

    # -- chunks ----------------------------------------------------------

    def get_chunk(self, owner: str, chunk_id: str) -> ChunkRecord:
        return self.get_chunks(owner, [chunk_id])[0]

    def get_chunks(self, owner: str, chunk_ids: Sequence[str]) -> list[ChunkRecord]:
        with self._read() as db:
            rows = db.execute(
                f"SELECT {CHUNK_COLUMNS} FROM chunks c JOIN documents d ON d.key = c.doc_key"
                " WHERE c.owner = ? AND c.id IN (SELECT value FROM json_each(?))",
                (owner, json.dumps(list(chunk_ids))),
            ).fetchall()
        found = {row[0]: _chunk_record(row) for row in rows}
        for chunk_id in chunk_ids:
            if chunk_id not in found:
                raise NotFound(f"no chunk {chunk_id!r}")
        return [found[chunk_id] for chunk_id in chunk_ids]

    # -- search ----------------------------------------------------------

    def search_bm25(
        self, owner: str, query: str, *, k: int = 10, where: DocumentFilter | None = None
    ) -> list[Hit]:
        words = query_terms(query)
        if not words or k <= 0:
            return []
        with self._read() as db:
            terms = query_terms_of(db, words)
            index = self._owner_bm25(db, owner) if terms is not None else None
            if terms is None or index is None:
                return _search_fts5(db, owner, query, k, where)
            allowed = None
            if where is not None:
                allowed = np.isin(index.doc_keys, _filtered_document_keys(db, owner, where))
        rows, scores = index.search(terms, k, allowed)
        return [
            Hit(index.chunk_ids[row], index.doc_ids[row], score)
            for row, score in zip(rows.tolist(), scores.tolist(), strict=True)
        ]

    def bm25_is_warm(self, owner: str) -> bool:
        with self._read() as db:
            _, generation = _generations(db, owner)
        index = self._bm25.peek(owner, generation)
        return isinstance(index, BM25Index) and len(index.chunk_ids) <= WARM_BM25_MAX_CHUNKS

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
        query = np.ascontiguousarray(vector, dtype=np.float32).reshape(-1)
        with self._read() as db:
            vectors = self._owner_vectors(db, owner, model)
            allowed = None if where is None else _filtered_document_keys(db, owner, where)
        if vectors is None or k <= 0:
            return []
        if query.size != vectors.matrix.shape[1]:
            raise StoreError(
                f"query vector has {query.size} dimensions, {model!r} vectors have"
                f" {vectors.matrix.shape[1]}"
            )
        ranges = None
        if approximate and len(vectors.ids) >= self.approximate_min_vectors:
            vectors, index = self._with_ivf(owner, model, vectors)
            ranges = index.probe(query, self.nprobe)
        rows = None if allowed is None else np.flatnonzero(np.isin(vectors.doc_keys, allowed))
        positions, scores = _nearest(vectors.matrix, query, k, rows, ranges)
        return [
            Hit(chunk_id, doc_id, score)
            for (chunk_id, doc_id), score in zip(
                vectors.ids[positions].tolist(), scores.tolist(), strict=True
            )
        ]

    def match_spans(
        self, owner: str, query: str, chunk_ids: Sequence[str]
    ) -> dict[str, list[tuple[int, int]]]:
        expression = match_expression(query)
        if expression is None or not chunk_ids:
            return {}
        # Highlighting in the main index would look up every query word's whole
        # posting list per chunk; a scratch index of just these chunks is 5x faster.
        with self._read() as db:
            chunks = db.execute(
                "SELECT key, id, text FROM chunks"
                " WHERE owner = ? AND id IN (SELECT value FROM json_each(?))",
                (owner, json.dumps(list(chunk_ids))),
            ).fetchall()
            fill_scratch(db, [(key, "", text) for key, _, text in chunks])
            marked = dict(
                db.execute(
                    "SELECT rowid, highlight(scratch_fts, 1, ?, ?) FROM scratch_fts"
                    " WHERE scratch_fts MATCH ?",
                    (_HIGHLIGHT_OPEN, _HIGHLIGHT_CLOSE, expression),
                ).fetchall()
            )
            clear_scratch(db)
        return {
            chunk_id: _marked_spans(text, marked[key])
            for key, chunk_id, text in chunks
            if key in marked
        }

    # -- embeddings ------------------------------------------------------

    def texts_to_embed(
        self, owner: str, model: str, *, batch_size: int = 64
    ) -> Iterator[list[TextToEmbed]]:
        after = -1
        while True:
            with self._read() as db:
                rows = db.execute(
                    "SELECT c.key, c.text_hash, c.text FROM chunks c"
                    " WHERE c.owner = ? AND c.key > ? AND NOT EXISTS (SELECT 1 FROM embeddings e"
                    " WHERE e.owner = c.owner AND e.model = ? AND e.text_hash = c.text_hash)"
                    " ORDER BY c.key LIMIT ?",
                    (owner, after, model, batch_size),
                ).fetchall()
            if not rows:
                return
            after = rows[-1][0]
            unique = {text_hash: text for _, text_hash, text in rows}
            yield [TextToEmbed(text_hash, text) for text_hash, text in unique.items()]

    def count_texts_to_embed(self, owner: str, model: str) -> int:
        with self._read() as db:
            (count,) = db.execute(
                "SELECT COUNT(DISTINCT c.text_hash) FROM chunks c WHERE c.owner = ?"
                " AND NOT EXISTS (SELECT 1 FROM embeddings e"
                " WHERE e.owner = c.owner AND e.model = ? AND e.text_hash = c.text_hash)",
                (owner, model),
            ).fetchone()
        return int(count)

    def put_embeddings(
        self, owner: str, model: str, text_hashes: Sequence[str], vectors: Vector
    ) -> None:
        matrix = np.ascontiguousarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(text_hashes):
            raise StoreError(
                f"expected {len(text_hashes)} vectors, got an array of shape {matrix.shape}"
            )
        if not np.isfinite(matrix).all():
            raise StoreError("vectors must be finite")
        with self._write() as db:
            stored = db.execute(
                "SELECT length(vector) FROM embeddings WHERE owner = ? AND model = ? LIMIT 1",
                (owner, model),
            ).fetchone()
            if stored and stored[0] != matrix.shape[1] * 4:
                raise StoreError(
                    f"{model!r} vectors here have {stored[0] // 4} dimensions,"
                    f" not {matrix.shape[1]}"
                )
            db.executemany(
                "INSERT INTO embeddings (owner, model, text_hash, vector) SELECT ?, ?, ?, ?"
                " WHERE EXISTS (SELECT 1 FROM chunks WHERE owner = ? AND text_hash = ?)"
                " ON CONFLICT DO UPDATE SET vector = excluded.vector",
                (
                    (owner, model, text_hash, row.tobytes(), owner, text_hash)
                    for text_hash, row in zip(text_hashes, matrix, strict=True)
                ),
            )
            _bump_generation(db, owner)

    # -- internals -------------------------------------------------------

    def _document(self, db: sqlite3.Connection, owner: str, doc_id: str) -> DocumentRecord:
        row = db.execute(
            f"SELECT {DOCUMENT_COLUMNS} FROM documents d WHERE d.owner = ? AND d.id = ?",
            (owner, doc_id),
        ).fetchone()
        if row is None:
            raise NotFound(f"no document {doc_id!r}")
        return _document_record(row)

    def _owner_vectors(
        self, db: sqlite3.Connection, owner: str, model: str
    ) -> _OwnerVectors | None:
        generation, _ = _generations(db, owner)
        vectors = self._vectors.get(
            (owner, model), generation, lambda: _load_vectors(db, owner, model, generation)
        )
        return vectors if vectors.matrix.shape[0] else None

    def _owner_bm25(self, db: sqlite3.Connection, owner: str) -> BM25Index | None:
        """The owner's in-memory BM25 index; None if the owner is too large for one."""
        _, generation = _generations(db, owner)

        def build() -> BM25Index | _TooLarge:
            (chunks,) = db.execute(
                "SELECT COUNT(*) FROM chunks WHERE owner = ?", (owner,)
            ).fetchone()
            if chunks > self.memory_bm25_max_chunks:
                return _TooLarge(generation)
            return load_bm25_index(db, owner, generation, BM25_WEIGHTS)

        index = self._bm25.get(owner, generation, build)
        return index if isinstance(index, BM25Index) else None

    def _with_ivf(
        self, owner: str, model: str, vectors: _OwnerVectors
    ) -> tuple[_OwnerVectors, vector_index.IVFIndex]:
        """The vectors reordered by their IVF index, built (and cached) on first use."""
        if vectors.ivf is not None:
            return vectors, vectors.ivf
        index = vector_index.IVFIndex.build(vectors.matrix)  # slow: outside the lock
        indexed = _OwnerVectors(
            vectors.generation,
            vectors.ids[index.order],
            vectors.doc_keys[index.order],
            vectors.matrix[index.order],
            index,
        )
        self._vectors.put((owner, model), indexed, replacing=vectors)
        return indexed, index


def _search_fts5(
    db: sqlite3.Connection, owner: str, query: str, k: int, where: DocumentFilter | None
) -> list[Hit]:
    """BM25 by FTS5's bm25(), for owners too large for an in-memory index."""
    expression = match_expression(query)
    if expression is None:
        return []
    rows = []
    if where is None:
        # Rank the whole index, then keep the owner's rows among the best: this
        # skips a join per matching row, which costs as much as BM25 itself, and
        # is exact whenever the owner holds k of them (one owner holds most rows).
        rows = db.execute(
            "SELECT c.id, d.id, f.score FROM (SELECT rowid, bm25(chunks_fts, ?, ?) AS score"
            " FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY score LIMIT ?) AS f"
            " CROSS JOIN chunks c ON c.key = f.rowid JOIN documents d ON d.key = c.doc_key"
            " WHERE c.owner = ? ORDER BY f.score LIMIT ?",
            (*BM25_WEIGHTS, expression, _OVERFETCH * k, owner, k),
        ).fetchall()
    if len(rows) < k:
        condition, params = _filter_sql(where)
        rows = db.execute(
            "SELECT c.id, d.id, bm25(chunks_fts, ?, ?) AS score"
            " FROM chunks_fts CROSS JOIN chunks c ON c.key = chunks_fts.rowid"
            " JOIN documents d ON d.key = c.doc_key"
            f" WHERE chunks_fts MATCH ? AND c.owner = ?{condition}"
            " ORDER BY score LIMIT ?",
            (*BM25_WEIGHTS, expression, owner, *params, k),
        ).fetchall()
    return [Hit(chunk_id, doc_id, -score) for chunk_id, doc_id, score in rows]


def _nearest(
    matrix: vector_index.Matrix,
    query: vector_index.Matrix,
    k: int,
    rows: vector_index.Rows | None,
    ranges: list[tuple[int, int]] | None,
) -> tuple[vector_index.Rows, vector_index.Matrix]:
    """Exact search among ``rows`` (all if None) within ``ranges`` (all if None)."""
    if ranges is None:
        return vector_index.search(matrix, query, k, rows)
    if rows is None:
        return vector_index.search_ranges(matrix, query, k, ranges)
    return vector_index.search(matrix, query, k, np.intersect1d(vector_index.rows_in(ranges), rows))


def _document_record(row: Sequence[Any]) -> DocumentRecord:
    return document_record(row, metadata=json.loads(row[8]), added_at=row[9])


def _chunk_record(row: Sequence[Any]) -> ChunkRecord:
    return chunk_record(row, json.loads(row[9]), json.loads(row[10]))


def _write_document(
    db: sqlite3.Connection,
    owner: str,
    document: ParsedDocument,
    content_hash: str,
    source: str | None,
    *,
    doc_id: str | None = None,
    doc_key: int | None = None,
) -> int:
    """Insert a new document row (``doc_id``) or overwrite an existing one (``doc_key``)."""
    values = document_values(owner, document, content_hash, source)
    values["metadata"] = json.dumps(values["metadata"], default=str)
    values["added_at"] = values["added_at"].isoformat(timespec="seconds")
    if doc_key is not None:
        assignments = ", ".join(f"{name} = :{name}" for name in values)
        db.execute(
            f"UPDATE documents SET {assignments} WHERE key = :key", {**values, "key": doc_key}
        )
        return doc_key
    columns = ", ".join(["id", *values])
    placeholders = ", ".join(f":{name}" for name in ["id", *values])
    cursor = db.execute(
        f"INSERT INTO documents ({columns}) VALUES ({placeholders})", {**values, "id": doc_id}
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def _insert_chunks(
    db: sqlite3.Connection,
    owner: str,
    doc_key: int,
    document: ParsedDocument,
    chunks: Iterable[Chunk],
) -> None:
    def rows() -> Iterator[tuple[Any, ...]]:
        for chunk in chunks:
            if document.text[chunk.start : chunk.end] != chunk.text:
                raise StoreError(
                    f"chunk {chunk.id!r} does not match the document text at"
                    f" {chunk.start}:{chunk.end}"
                )
            yield (
                chunk.id,
                owner,
                doc_key,
                chunk.index,
                chunk.page,
                chunk.page_end,
                chunk.start,
                chunk.end,
                chunk.text,
                text_hash(chunk.text),
                json.dumps(chunk.page_breaks),
                json.dumps(places_value(chunk), ensure_ascii=False),
            )

    db.executemany(
        'INSERT INTO chunks (id, owner, doc_key, position, page, page_end, start, "end",'
        " text, text_hash, page_breaks, places) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows(),
    )
    db.execute(
        "INSERT INTO chunks_fts (rowid, title, text)"
        " SELECT c.key, d.title, c.text FROM chunks c JOIN documents d ON d.key = c.doc_key"
        " WHERE c.doc_key = ?",
        (doc_key,),
    )
    db.execute(
        "UPDATE documents SET chunk_count = (SELECT COUNT(*) FROM chunks WHERE doc_key = ?)"
        " WHERE key = ?",
        (doc_key, doc_key),
    )


def _write_locations(
    db: sqlite3.Connection, doc_key: int, document: ParsedDocument, original: bytes | None
) -> None:
    """The document's page boxes and original file, replacing any earlier version's."""
    db.execute("DELETE FROM page_boxes WHERE doc_key = ?", (doc_key,))
    db.executemany(
        'INSERT INTO page_boxes (doc_key, page, start, "end", boxes) VALUES (?, ?, ?, ?, ?)',
        ((doc_key, *row) for row in page_box_rows(document)),
    )
    db.execute("DELETE FROM document_files WHERE doc_key = ?", (doc_key,))
    if original is not None:
        db.execute("INSERT INTO document_files (doc_key, data) VALUES (?, ?)", (doc_key, original))


def _delete_chunks(db: sqlite3.Connection, doc_key: int) -> list[str]:
    """Delete a document's chunks and their index rows; return their text hashes."""
    hashes = [
        text_hash
        for (text_hash,) in db.execute(
            "SELECT DISTINCT text_hash FROM chunks WHERE doc_key = ?", (doc_key,)
        )
    ]
    db.execute(
        "INSERT INTO chunks_fts (chunks_fts, rowid, title, text)"
        " SELECT 'delete', c.key, d.title, c.text FROM chunks c"
        " JOIN documents d ON d.key = c.doc_key WHERE c.doc_key = ?",
        (doc_key,),
    )
    db.execute("DELETE FROM chunks WHERE doc_key = ?", (doc_key,))
    return hashes


def _drop_unused_embeddings(db: sqlite3.Connection, owner: str, text_hashes: list[str]) -> None:
    """Drop the owner's vectors for these texts unless another chunk of the owner still has one."""
    db.execute(
        "DELETE FROM embeddings WHERE owner = ? AND text_hash IN (SELECT value FROM json_each(?))"
        " AND NOT EXISTS (SELECT 1 FROM chunks c"
        " WHERE c.owner = embeddings.owner AND c.text_hash = embeddings.text_hash)",
        (owner, json.dumps(text_hashes)),
    )


def _bump_generation(db: sqlite3.Connection, owner: str, *, text: bool = False) -> None:
    """Mark the owner's data changed: any write (vectors), and ``text`` ones (BM25)."""
    db.execute(
        "INSERT INTO owner_generations (owner, generation, text_generation) VALUES (?, 1, ?)"
        " ON CONFLICT (owner) DO UPDATE SET generation = generation + 1,"
        " text_generation = text_generation + excluded.text_generation",
        (owner, int(text)),
    )


def _generations(db: sqlite3.Connection, owner: str) -> tuple[int, int]:
    """The owner's (any write, text write) generations."""
    row = db.execute(
        "SELECT generation, text_generation FROM owner_generations WHERE owner = ?", (owner,)
    ).fetchone()
    return (row[0], row[1]) if row else (0, 0)


def _load_vectors(db: sqlite3.Connection, owner: str, model: str, generation: int) -> _OwnerVectors:
    """Every chunk of the owner that has a vector for the model, in key order.

    Vectors are read in storage order and matched to chunks by text hash in
    memory: a lookup per chunk would read the table in random order, 10x slower.
    """
    stored, row_of = _stored_vectors(db, owner, model)
    chunks = db.execute(
        "SELECT c.id, d.id, c.doc_key, c.text_hash FROM chunks c"
        " JOIN documents d ON d.key = c.doc_key WHERE c.owner = ? ORDER BY c.key",
        (owner,),
    ).fetchall()
    ids: npt.NDArray[np.object_] = np.empty(len(chunks), dtype=object)
    doc_keys: list[int] = []
    rows: list[int] = []
    for chunk_id, doc_id, doc_key, text_hash in chunks:
        if (row := row_of.get(text_hash)) is not None:
            ids[len(rows)] = (chunk_id, doc_id)
            doc_keys.append(doc_key)
            rows.append(row)
    in_order = rows == list(range(len(stored)))  # one chunk per vector, as stored
    return _OwnerVectors(
        generation,
        ids[: len(rows)],
        np.array(doc_keys, dtype=np.int64),
        stored if in_order else stored[np.array(rows, dtype=np.int64)],
    )


def _stored_vectors(
    db: sqlite3.Connection, owner: str, model: str
) -> tuple[vector_index.Matrix, dict[str, int]]:
    """The owner's vectors for the model as one matrix, and each text hash's row in it."""
    (count,) = db.execute(
        "SELECT COUNT(*) FROM embeddings WHERE owner = ? AND model = ?", (owner, model)
    ).fetchone()
    cursor = db.execute(
        "SELECT text_hash, vector FROM embeddings INDEXED BY embeddings_owner_model"
        " WHERE owner = ? AND model = ?",
        (owner, model),
    )
    matrix: vector_index.Matrix = np.empty((count, 0), dtype=np.float32)
    row_of: dict[str, int] = {}
    while batch := cursor.fetchmany(_LOAD_BATCH):
        if not row_of:
            matrix = np.empty((count, len(batch[0][1]) // 4), dtype=np.float32)
        start = len(row_of)
        blob = b"".join(vector for _, vector in batch)
        if len(blob) != len(batch) * matrix.shape[1] * 4:
            raise StoreError(f"{model!r} vectors of {owner!r} differ in dimension")
        matrix[start : start + len(batch)] = np.frombuffer(blob, np.float32).reshape(len(batch), -1)
        row_of.update((text_hash, start + i) for i, (text_hash, _) in enumerate(batch))
    return matrix, row_of


def _filter_sql(where: DocumentFilter | None) -> tuple[str, list[Any]]:
    """SQL conditions on the documents table (alias ``d``), each starting with AND."""
    if where is None:
        return "", []
    sql: list[str] = []
    params: list[Any] = []
    if where.doc_ids is not None:
        sql.append("d.id IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(sorted(where.doc_ids)))
    if where.media_types is not None:
        sql.append("d.media_type IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(sorted(where.media_types)))
    if where.title_contains:
        sql.append("instr(lower(d.title), lower(?)) > 0")
        params.append(where.title_contains)
    for key, value in where.metadata.items():
        if isinstance(value, bool):
            sql.append(
                "EXISTS (SELECT 1 FROM json_each(d.metadata) m WHERE m.key = ? AND m.type = ?)"
            )
            params += [key, "true" if value else "false"]
        else:
            sql.append(
                "EXISTS (SELECT 1 FROM json_each(d.metadata) m WHERE m.key = ? AND m.value = ?"
                " AND m.type IN ('text', 'integer', 'real'))"
            )
            params += [key, value]
    return "".join(f" AND {clause}" for clause in sql), params


def _filtered_document_keys(
    db: sqlite3.Connection, owner: str, where: DocumentFilter
) -> npt.NDArray[np.int64]:
    condition, params = _filter_sql(where)
    keys = db.execute(
        f"SELECT d.key FROM documents d WHERE d.owner = ?{condition}", (owner, *params)
    ).fetchall()
    return np.array([key for (key,) in keys], dtype=np.int64)


def _marked_spans(text: str, marked: str) -> list[tuple[int, int]]:
    """Offsets in ``text`` of the runs FTS5's highlight() wrapped in the marker characters."""
    if _HIGHLIGHT_OPEN in text or _HIGHLIGHT_CLOSE in text:
        return []  # markers would be ambiguous; no highlight rather than a wrong one
    spans: list[tuple[int, int]] = []
    for removed, match in enumerate(_MARKED_RUN.finditer(marked)):
        start = match.start() - 2 * removed
        spans.append((start, start + len(match.group(1))))
    plain = marked.replace(_HIGHLIGHT_OPEN, "").replace(_HIGHLIGHT_CLOSE, "")
    return spans if plain == text else []


def text_hash(text: str) -> str:
    """The embedding cache key of a chunk text."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
