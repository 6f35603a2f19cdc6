"""The PostgreSQL store: pooled connections, Okapi BM25 over a postings table, pgvector vectors.

Needs the ``vector`` extension (pgvector) on the server and the ``postgres``
extra here. Every query names the owner; BM25 statistics (chunk count, mean
length, document frequency) are the owner's own, so one owner's documents
never shift another's scores.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import UTC
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.types.json import Jsonb

from docuchat.corpus.locations import PageRegion
from docuchat.corpus.types import Chunk, ParsedDocument
from docuchat.errors import NotFound, StoreError
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
from docuchat.store.document_parts import DocumentParts
from docuchat.store.postgres_pool import open_migrated_pool, pooled_transaction
from docuchat.store.postgres_schema import TEXT_CONFIG, hnsw_index
from docuchat.store.postgres_words import indexed_words, query_words, word_spans
from docuchat.store.rows import (
    CHUNK_COLUMNS,
    DOCUMENT_COLUMNS,
    chunk_record,
    document_record,
    document_values,
    page_box_rows,
    places_value,
)
from docuchat.store.sqlite import text_hash

Connection = psycopg.Connection[Any]

# Okapi BM25 with Lucene's idf, log(1 + (N - df + 0.5) / (df + 0.5)), which never goes negative.
BM25_K1, BM25_B = 1.2, 0.75
# HNSW candidates per approximate search (pgvector's hnsw.ef_search); at least k are asked for.
DEFAULT_EF_SEARCH = 100
_MAX_EF_SEARCH = 1000  # pgvector's upper bound
_OWNER_LOCKS = 0x646F63  # advisory lock namespace: one lock per owner for writers
_PARTS = DocumentParts("%s")


class PostgresStore:
    """The store for many workers: thread safe, each call runs on a pooled connection.

    ``conninfo`` is a ``postgresql://`` URL or a libpq ``key=value`` string;
    ``max_connections`` bounds the pool. Vector search is exact unless
    ``approximate`` is asked for and :meth:`create_vector_index` has built an
    HNSW index for the model; ``ef_search`` is that index's search depth.
    """

    def __init__(
        self, conninfo: str, *, max_connections: int = 10, ef_search: int = DEFAULT_EF_SEARCH
    ) -> None:
        self.ef_search = ef_search
        self._pool, self.applied_migrations = open_migrated_pool(
            conninfo, name="docuchat-store", max_size=max_connections, configure=register_vector
        )

    def close(self) -> None:
        self._pool.close()

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
        with self._transaction() as conn:
            _lock_owner(conn, owner)  # another writer's same content waits, then is "unchanged"
            found = conn.execute(
                f"SELECT d.content_hash = %(hash)s, d.key, {DOCUMENT_COLUMNS} FROM documents d"
                " WHERE d.owner = %(owner)s"
                " AND (d.content_hash = %(hash)s OR d.source = %(source)s)"
                " ORDER BY 1 DESC LIMIT 1",
                {"owner": owner, "hash": content_hash, "source": source},
            ).fetchone()
            if found and found[0]:
                return AddResult("unchanged", _document_record(found[2:]))
            status: AddStatus
            if found:  # the same source with other content
                status, doc_key, doc_id = "replaced", found[1], found[2]
                old_hashes = _delete_chunks(conn, owner, doc_key)
                _write_document(conn, owner, document, content_hash, source, doc_key=doc_key)
            else:
                status, doc_id, old_hashes = "added", uuid.uuid4().hex[:16], []
                doc_key = _write_document(
                    conn, owner, document, content_hash, source, doc_id=doc_id
                )
            _insert_chunks(conn, owner, doc_key, document, chunks)
            _write_locations(conn, doc_key, document, original)
            if old_hashes:
                _drop_unused_embeddings(conn, owner, old_hashes)
            return AddResult(status, _document(conn, owner, doc_id))

    def list_documents(
        self, owner: str, *, where: DocumentFilter | None = None
    ) -> list[DocumentRecord]:
        condition, params = _filter_sql(where)
        with self._transaction() as conn:
            rows = conn.execute(
                f"SELECT {DOCUMENT_COLUMNS} FROM documents d WHERE d.owner = %(owner)s{condition}"
                " ORDER BY d.key",
                {"owner": owner, **params},
            ).fetchall()
        return [_document_record(row) for row in rows]

    def get_document(self, owner: str, doc_id: str) -> DocumentRecord:
        with self._transaction() as conn:
            return _document(conn, owner, doc_id)

    def remove_document(self, owner: str, doc_id: str) -> None:
        with self._transaction() as conn:
            _lock_owner(conn, owner)
            doc_key = _PARTS.key(conn, owner, doc_id)
            old_hashes = _delete_chunks(conn, owner, doc_key)
            conn.execute("DELETE FROM documents WHERE key = %s", (doc_key,))
            _drop_unused_embeddings(conn, owner, old_hashes)

    def document_text(self, owner: str, doc_id: str, start: int = 0, end: int | None = None) -> str:
        if start < 0 or (end is not None and end < start):
            raise StoreError(f"invalid text span {start}:{end}")
        with self._transaction() as conn:
            row = conn.execute(
                "SELECT substr(text, %s::integer, coalesce(%s::integer, char_count))"
                " FROM documents WHERE owner = %s AND id = %s",
                (start + 1, None if end is None else end - start, owner, doc_id),
            ).fetchone()
        if row is None:
            raise NotFound(f"no document {doc_id!r}")
        return str(row[0])

    def document_file(self, owner: str, doc_id: str) -> bytes:
        with self._transaction() as conn:
            return _PARTS.file(conn, owner, doc_id)

    def text_regions(self, owner: str, doc_id: str, start: int, end: int) -> list[PageRegion]:
        with self._transaction() as conn:
            return _PARTS.regions(conn, owner, doc_id, start, end)

    # -- chunks ----------------------------------------------------------

    def get_chunk(self, owner: str, chunk_id: str) -> ChunkRecord:
        return self.get_chunks(owner, [chunk_id])[0]

    def get_chunks(self, owner: str, chunk_ids: Sequence[str]) -> list[ChunkRecord]:
        with self._transaction() as conn:
            rows = conn.execute(
                f"SELECT {CHUNK_COLUMNS} FROM chunks c JOIN documents d ON d.key = c.doc_key"
                " WHERE c.owner = %s AND c.id = ANY(%s::text[])",
                (owner, list(chunk_ids)),
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
        words = query_words(query)
        if not words or k <= 0:
            return []
        condition, params = _filter_sql(where)
        with self._transaction() as conn:
            rows = conn.execute(
                _bm25_sql(condition), {"owner": owner, "words": words, "k": k, **params}
            ).fetchall()
        return [Hit(chunk_id, doc_id, float(score)) for chunk_id, doc_id, score in rows]

    def bm25_is_warm(self, owner: str) -> bool:
        return False  # every search is a round trip to the database server

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
        if k <= 0:
            return []
        condition, params = _filter_sql(where)
        params |= {"owner": owner, "model": model, "q": query, "k": k}
        with self._transaction() as conn:
            registered = conn.execute(
                "SELECT dim, hnsw FROM embedding_models WHERE model = %s", (model,)
            ).fetchone()
            if registered is None:
                return []
            dim, hnsw = registered
            if query.size != dim:
                raise StoreError(
                    f"query vector has {query.size} dimensions, {model!r} vectors have {dim}"
                )
            rows = []
            if approximate and hnsw:
                # The index hands out ef_search candidates before owner and filters are
                # applied; when fewer than k survive, exact search answers instead.
                ef_search = min(max(self.ef_search, k), _MAX_EF_SEARCH)
                conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(ef_search),))
                approximate_sql = _vectors_sql(condition, model=model, dim=dim)
                rows = conn.execute(approximate_sql, {**params, "fetch": ef_search}).fetchall()
            if len(rows) < k:
                fetch = None if condition else k  # a filter may drop any of the nearest
                rows = conn.execute(_vectors_sql(condition), {**params, "fetch": fetch}).fetchall()
        return [Hit(chunk_id, doc_id, float(score)) for chunk_id, doc_id, score in rows]

    def match_spans(
        self, owner: str, query: str, chunk_ids: Sequence[str]
    ) -> dict[str, list[tuple[int, int]]]:
        words = query_words(query)
        if not words or not chunk_ids:
            return {}
        with self._transaction() as conn:
            chunks = conn.execute(
                "SELECT id, text FROM chunks WHERE owner = %s AND id = ANY(%s::text[])",
                (owner, list(chunk_ids)),
            ).fetchall()
            spans = {chunk_id: list(word_spans(text)) for chunk_id, text in chunks}
            candidates = sorted({word for found in spans.values() for _, _, word in found})
            # A word matches when it stems to one of the query's stems.
            matching = {
                word
                for (word,) in conn.execute(
                    f"SELECT w FROM unnest(%s::text[]) AS w WHERE"
                    f" tsvector_to_array(to_tsvector('{TEXT_CONFIG}', w))"
                    f" && tsvector_to_array(to_tsvector('{TEXT_CONFIG}', %s))",
                    (candidates, words),
                )
            }
        matched = {
            chunk_id: [(start, end) for start, end, word in found if word in matching]
            for chunk_id, found in spans.items()
        }
        return {chunk_id: found for chunk_id, found in matched.items() if found}

    def create_vector_index(self, model: str) -> None:
        """Build an HNSW index of ``model``'s vectors, which approximate searches then use.

        Writes to the embeddings wait while it builds (minutes for millions of
        vectors); the index then stays current by itself.
        """
        with self._transaction() as conn:
            registered = conn.execute(
                "SELECT dim FROM embedding_models WHERE model = %s", (model,)
            ).fetchone()
            if registered is None:
                raise StoreError(f"no {model!r} vectors to index yet")
            name = hnsw_index(model)
            conn.execute(
                sql.SQL(
                    "CREATE INDEX IF NOT EXISTS {} ON embeddings"
                    " USING hnsw ((vector::vector({})) vector_ip_ops) WHERE model = {}"
                ).format(sql.Identifier(name), sql.SQL(str(int(registered[0]))), sql.Literal(model))
            )
            conn.execute("UPDATE embedding_models SET hnsw = true WHERE model = %s", (model,))

    # -- embeddings ------------------------------------------------------

    def texts_to_embed(
        self, owner: str, model: str, *, batch_size: int = 64
    ) -> Iterator[list[TextToEmbed]]:
        after = -1
        while True:
            with self._transaction() as conn:
                rows = conn.execute(
                    "SELECT c.key, c.text_hash, c.text FROM chunks c"
                    " WHERE c.owner = %s AND c.key > %s AND NOT EXISTS (SELECT 1 FROM embeddings e"
                    " WHERE e.owner = c.owner AND e.model = %s AND e.text_hash = c.text_hash)"
                    " ORDER BY c.key LIMIT %s",
                    (owner, after, model, batch_size),
                ).fetchall()
            if not rows:
                return
            after = rows[-1][0]
            unique = {text_hash: text for _, text_hash, text in rows}
            yield [TextToEmbed(text_hash, text) for text_hash, text in unique.items()]

    def count_texts_to_embed(self, owner: str, model: str) -> int:
        with self._transaction() as conn:
            row = conn.execute(
                "SELECT count(DISTINCT c.text_hash) FROM chunks c WHERE c.owner = %s"
                " AND NOT EXISTS (SELECT 1 FROM embeddings e"
                " WHERE e.owner = c.owner AND e.model = %s AND e.text_hash = c.text_hash)",
                (owner, model),
            ).fetchone()
        return int(row[0]) if row else 0

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
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO embedding_models (model, dim) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                (model, matrix.shape[1]),
            )
            row = conn.execute(
                "SELECT dim FROM embedding_models WHERE model = %s", (model,)
            ).fetchone()
            assert row is not None
            if row[0] != matrix.shape[1]:
                raise StoreError(
                    f"{model!r} vectors here have {row[0]} dimensions, not {matrix.shape[1]}"
                )
            # Only for texts the owner holds: nobody plants vectors in another's search.
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO embeddings (owner, model, text_hash, vector)"
                    " SELECT %s, %s, %s, %b"
                    " WHERE EXISTS (SELECT 1 FROM chunks WHERE owner = %s AND text_hash = %s)"
                    " ON CONFLICT (owner, model, text_hash) DO UPDATE SET vector = excluded.vector",
                    [
                        (owner, model, text_hash, vector, owner, text_hash)
                        for text_hash, vector in zip(text_hashes, matrix, strict=True)
                    ],
                )

    # -- internals -------------------------------------------------------

    def _transaction(self) -> AbstractContextManager[Connection]:
        return pooled_transaction(self._pool)


def _lock_owner(conn: Connection, owner: str) -> None:
    """Serialise this owner's writers until the transaction ends."""
    conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_OWNER_LOCKS, owner))


def _document(conn: Connection, owner: str, doc_id: str) -> DocumentRecord:
    row = conn.execute(
        f"SELECT {DOCUMENT_COLUMNS} FROM documents d WHERE d.owner = %s AND d.id = %s",
        (owner, doc_id),
    ).fetchone()
    if row is None:
        raise NotFound(f"no document {doc_id!r}")
    return _document_record(row)


def _document_record(row: Sequence[Any]) -> DocumentRecord:
    added_at = row[9].astimezone(UTC).isoformat(timespec="seconds")
    return document_record(row, metadata=row[8], added_at=added_at)


def _chunk_record(row: Sequence[Any]) -> ChunkRecord:
    return chunk_record(row, row[9], row[10])


def _write_document(
    conn: Connection,
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
    values["metadata"] = Jsonb(values["metadata"], dumps=_json_dumps)
    if doc_key is not None:
        assignments = ", ".join(f"{name} = %({name})s" for name in values)
        conn.execute(
            f"UPDATE documents SET {assignments} WHERE key = %(key)s", {**values, "key": doc_key}
        )
        return doc_key
    columns = ", ".join(["id", *values])
    placeholders = ", ".join(f"%({name})s" for name in ["id", *values])
    row = conn.execute(
        f"INSERT INTO documents ({columns}) VALUES ({placeholders}) RETURNING key",
        {**values, "id": doc_id},
    ).fetchone()
    assert row is not None
    return int(row[0])


def _json_dumps(value: Any) -> str:
    return json.dumps(value, default=str)


_CHUNK_ARRAYS = (
    "ids",
    "positions",
    "pages",
    "page_ends",
    "starts",
    "ends",
    "texts",
    "hashes",
    "page_breaks",
    "places",
    "words",
)


def _add_to_stats(rows: str, sign: str = "") -> str:
    """SQL adding (``sign`` "-": taking away) the chunks in ``rows`` to their owner's totals."""
    return (
        "INSERT INTO owner_stats (owner, chunks, length)"
        f" SELECT %(owner)s, {sign}count(*), {sign}coalesce(sum(length), 0) FROM {rows}"
        " ON CONFLICT (owner) DO UPDATE SET chunks = owner_stats.chunks + excluded.chunks,"
        " length = owner_stats.length + excluded.length"
    )


# Chunks, their postings, the document's chunk count and the owner's totals in one
# statement: each chunk's words are stemmed once, giving both its postings and its
# length (its number of words).
_INSERT_CHUNKS = f"""
WITH input AS (
    SELECT * FROM unnest(%(ids)s::text[], %(positions)s::integer[], %(pages)s::integer[],
        %(page_ends)s::integer[], %(starts)s::integer[], %(ends)s::integer[], %(texts)s::text[],
        %(hashes)s::text[], %(page_breaks)s::jsonb[], %(places)s::jsonb[], %(words)s::text[])
        WITH ORDINALITY
        AS i (id, position, page, page_end, start, "end", text, text_hash, page_breaks, places,
            words, n)
), terms AS (
    SELECT i.id, t.lexeme AS term, cardinality(t.positions) AS tf
    FROM input i CROSS JOIN LATERAL unnest(to_tsvector('{TEXT_CONFIG}', i.words)) AS t
), lengths AS (
    SELECT id, sum(tf) AS length FROM terms GROUP BY id
), inserted AS (
    INSERT INTO chunks (id, owner, doc_key, position, page, page_end, start, "end", text,
        text_hash, page_breaks, places, length)
    SELECT i.id, %(owner)s, %(doc_key)s, i.position, i.page, i.page_end, i.start, i."end", i.text,
        i.text_hash, i.page_breaks, i.places, coalesce(l.length, 0)
    FROM input i LEFT JOIN lengths l ON l.id = i.id ORDER BY i.n
    RETURNING key, id, length
), counted AS (
    UPDATE documents SET chunk_count = (SELECT count(*) FROM inserted) WHERE key = %(doc_key)s
), totals AS ({_add_to_stats("inserted")})
INSERT INTO postings (owner, term, chunk_key, tf, length)
SELECT %(owner)s, t.term, c.key, t.tf, c.length FROM terms t JOIN inserted c ON c.id = t.id
"""


def _insert_chunks(
    conn: Connection,
    owner: str,
    doc_key: int,
    document: ParsedDocument,
    chunks: Iterable[Chunk],
) -> None:
    rows = []
    for chunk in chunks:
        if document.text[chunk.start : chunk.end] != chunk.text:
            raise StoreError(
                f"chunk {chunk.id!r} does not match the document text at {chunk.start}:{chunk.end}"
            )
        rows.append(
            (
                chunk.id,
                chunk.index,
                chunk.page,
                chunk.page_end,
                chunk.start,
                chunk.end,
                chunk.text,
                text_hash(chunk.text),
                json.dumps(chunk.page_breaks),
                json.dumps(places_value(chunk), ensure_ascii=False),
                indexed_words(document.title, chunk.text),
            )
        )
    arrays = {name: [row[i] for row in rows] for i, name in enumerate(_CHUNK_ARRAYS)}
    conn.execute(_INSERT_CHUNKS, {**arrays, "owner": owner, "doc_key": doc_key})


def _write_locations(
    conn: Connection, doc_key: int, document: ParsedDocument, original: bytes | None
) -> None:
    """The document's page boxes and original file, replacing any earlier version's."""
    conn.execute("DELETE FROM page_boxes WHERE doc_key = %s", (doc_key,))
    with conn.cursor() as cursor:
        cursor.executemany(
            'INSERT INTO page_boxes (doc_key, page, start, "end", boxes)'
            " VALUES (%s, %s, %s, %s, %s)",
            [(doc_key, *row) for row in page_box_rows(document)],
        )
    conn.execute("DELETE FROM document_files WHERE doc_key = %s", (doc_key,))
    if original is not None:
        conn.execute(
            "INSERT INTO document_files (doc_key, data) VALUES (%s, %s)", (doc_key, original)
        )


def _delete_chunks(conn: Connection, owner: str, doc_key: int) -> list[str]:
    """Delete a document's chunks and their postings; return their text hashes."""
    row = conn.execute(
        "WITH gone AS (DELETE FROM chunks WHERE doc_key = %(doc_key)s"
        " RETURNING key, text_hash, length),"
        " unposted AS (DELETE FROM postings WHERE chunk_key IN (SELECT key FROM gone)),"
        f" totals AS ({_add_to_stats('gone', sign='-')})"
        " SELECT coalesce(array_agg(DISTINCT text_hash), '{}') FROM gone",
        {"owner": owner, "doc_key": doc_key},
    ).fetchone()
    assert row is not None
    return list(row[0])


def _drop_unused_embeddings(conn: Connection, owner: str, text_hashes: list[str]) -> None:
    """Drop the owner's vectors for these texts unless another chunk of the owner still has one."""
    conn.execute(
        "DELETE FROM embeddings e WHERE e.owner = %s AND e.text_hash = ANY(%s::text[])"
        " AND NOT EXISTS (SELECT 1 FROM chunks c"
        " WHERE c.owner = e.owner AND c.text_hash = e.text_hash)",
        (owner, text_hashes),
    )


def _bm25_sql(condition: str) -> str:
    """Okapi BM25 of the owner's chunks for the stemmed query words.

    Only the query words' posting lists are read, from the covering primary
    key: once to count them (document frequency), once to score. Each word's
    idf and the length normalisation are worked out once, so a posting costs
    one division. Unfiltered, the best ``k`` are chosen before chunks and
    documents are joined; a filter needs the join first, as it may drop any.
    """
    early_limit = "" if condition else "ORDER BY score DESC, p.chunk_key LIMIT %(k)s"
    return f"""
    WITH stats AS MATERIALIZED (
        SELECT chunks::float8 AS n, {BM25_K1 * (1 - BM25_B)}::float8 AS c0,
            {BM25_K1 * BM25_B}::float8 * chunks / greatest(length, 1) AS c1
        FROM owner_stats WHERE owner = %(owner)s
    ), terms AS MATERIALIZED (
        SELECT q.lexeme AS term, (SELECT count(*) FROM postings p
            WHERE p.owner = %(owner)s AND p.term = q.lexeme)::float8 AS df
        FROM unnest(to_tsvector('{TEXT_CONFIG}', %(words)s)) AS q
    ), weights AS MATERIALIZED (
        SELECT t.term, ln(1 + (s.n - t.df + 0.5) / (t.df + 0.5)) * {BM25_K1 + 1} AS weight
        FROM terms t CROSS JOIN stats s WHERE t.df > 0
    ), scores AS (
        SELECT p.chunk_key, sum(w.weight * p.tf / (p.tf + s.c0 + s.c1 * p.length)) AS score
        FROM weights w CROSS JOIN stats s
        JOIN postings p ON p.owner = %(owner)s AND p.term = w.term
        GROUP BY p.chunk_key {early_limit}
    )
    SELECT c.id, d.id, sc.score FROM scores sc
    JOIN chunks c ON c.key = sc.chunk_key JOIN documents d ON d.key = c.doc_key
    WHERE c.owner = %(owner)s{condition}
    ORDER BY sc.score DESC, c.key LIMIT %(k)s
    """


def _vectors_sql(
    condition: str, *, model: str | None = None, dim: int | None = None
) -> sql.Composed:
    """The owner's ``fetch`` nearest vectors of a model (all if None), then their chunks.

    Exact by default. Given the model's name and dimension it is written the way
    the model's partial HNSW index is defined, so the planner can use it.
    """
    distance: sql.Composable
    model_is: sql.Composable
    if model is None:
        distance, model_is = sql.SQL("e.vector <#> %(q)b"), sql.SQL("%(model)s")
    else:
        cast = sql.SQL(f"::vector({int(dim or 0)})")
        distance = sql.SQL("e.vector{cast} <#> %(q)b{cast}").format(cast=cast)
        model_is = sql.Literal(model)
    return sql.SQL(
        """
        WITH nearest AS (
            SELECT e.text_hash, {distance} AS distance FROM embeddings e
            WHERE e.owner = %(owner)s AND e.model = {model_is}
            ORDER BY distance LIMIT %(fetch)s
        )
        SELECT c.id, d.id, -n.distance FROM nearest n
        JOIN chunks c ON c.owner = %(owner)s AND c.text_hash = n.text_hash
        JOIN documents d ON d.key = c.doc_key
        WHERE true{condition}
        ORDER BY n.distance, c.key LIMIT %(k)s
        """
    ).format(distance=distance, model_is=model_is, condition=sql.SQL(condition))


def _filter_sql(where: DocumentFilter | None) -> tuple[str, dict[str, Any]]:
    """SQL conditions on the documents table (alias ``d``), each starting with AND."""
    if where is None:
        return "", {}
    clauses: list[str] = []
    params: dict[str, Any] = {}
    if where.doc_ids is not None:
        clauses.append("d.id = ANY(%(doc_ids)s::text[])")
        params["doc_ids"] = sorted(where.doc_ids)
    if where.media_types is not None:
        clauses.append("d.media_type = ANY(%(media_types)s::text[])")
        params["media_types"] = sorted(where.media_types)
    if where.title_contains:
        clauses.append("strpos(lower(d.title), lower(%(title_contains)s)) > 0")
        params["title_contains"] = where.title_contains
    if where.metadata:
        # Containment compares JSON types: 1 does not match true, nor "1".
        clauses.append("d.metadata @> %(metadata)s")
        params["metadata"] = Jsonb(dict(where.metadata))
    return "".join(f" AND {clause}" for clause in clauses), params
