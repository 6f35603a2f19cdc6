"""Retrieval quality on a labelled BEIR-format collection, measured through the app's own search.

The collection is ingested once into a SQLite store of its own, in a folder
named after the corpus's content and the chunking settings, and embedded
there; a second run finds both and goes straight to the queries. Every query
then runs through :class:`~docuchat.search.HybridSearcher`, the code behind
``docuchat search``, in each mode: BM25 alone, vectors alone ("dense") and
fused ("hybrid"). Chunks are ranked; a document ranks where its best chunk
does. Query vectors are computed before the clock starts, so latency is the
search alone. Queries may be embedded by another variant of the documents'
model (the app embeds documents in bfloat16 and questions in int8 where that
is fastest): vectors of one space are interchangeable.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from docuchat.corpus.chunking import chunk_document
from docuchat.corpus.ingest import DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP, Progress, embed_pending
from docuchat.corpus.types import Block, ParsedDocument
from docuchat.embeddings import Embedder
from docuchat.errors import ConfigError
from docuchat.evals.beir import DEFAULT_METRICS, BeirDataset, BeirDocument, evaluate, load_beir
from docuchat.search import HybridSearcher, Mode
from docuchat.store import Store, open_store

EVAL_OWNER = "eval"
METHODS: tuple[Mode, ...] = ("bm25", "dense", "hybrid")
# Chunks fetched per document wanted: a document with several matching chunks
# takes several places in the chunk ranking but counts once.
CHUNKS_PER_DOCUMENT = 3
_INDEX_VERSION = 2  # bump when what the cache holds changes meaning


@dataclass(frozen=True, slots=True)
class IndexStatus:
    documents: int
    chunks: int
    added: int  # documents ingested by this run; 0 when the cached index was complete
    embedded: int  # texts embedded by this run; 0 when every vector was cached

    @property
    def reused(self) -> bool:
        return self.added == 0 and self.embedded == 0


@dataclass(frozen=True, slots=True)
class MethodResult:
    metrics: Mapping[str, float]  # "ndcg@10": 0.69, ...
    latency_p50_ms: float
    latency_p95_ms: float

    def to_dict(self) -> dict[str, Any]:
        latency = {"p50": round(self.latency_p50_ms, 3), "p95": round(self.latency_p95_ms, 3)}
        return {**{name: round(v, 4) for name, v in self.metrics.items()}, "latency_ms": latency}


@dataclass(frozen=True, slots=True)
class RetrievalReport:
    index_path: Path
    index: IndexStatus
    embedder: str | None
    query_embedder: str | None
    queries: int
    results: Mapping[str, MethodResult | None]  # None: needs an embedder and there is none

    def to_dict(self) -> dict[str, Any]:
        """``{"bm25": {...}, "dense": {...}, "hybrid": {...}}``."""
        return {method: r and r.to_dict() for method, r in self.results.items()}


def evaluate_retrieval(
    directory: str | Path,
    *,
    embedder: Embedder | None,
    cache_root: Path,
    query_embedder: Embedder | None = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    split: str = "test",
    progress: Progress | None = None,
) -> RetrievalReport:
    """Index the collection (or reuse its cached index), then score each search mode.

    Metrics at cut-off ``c`` come from a search for the best ``3c`` chunks, so
    that ``c`` distinct documents are almost always among them; the latency is
    that of the shallowest such search, the size of search the app runs.
    ``query_embedder`` (default: ``embedder``) embeds the queries; it must share the
    documents' vector space.
    """
    by_cutoff = _metrics_by_cutoff(metrics)
    queries_by = query_embedder or embedder
    if embedder is not None and queries_by is not None and queries_by.space != embedder.space:
        raise ConfigError(
            f"queries embedded by {queries_by.name} (space {queries_by.space!r}) cannot search"
            f" vectors of {embedder.name} (space {embedder.space!r})"
        )
    dataset = load_beir(directory, split=split)
    index_path = cache_root / index_key(directory) / "index.db"
    store = open_store(index_path)
    try:
        status = build_index(store, dataset, embedder, progress=progress)
        searcher = HybridSearcher(store, queries_by if embedder else None)
        vectors = _query_vectors(searcher.embedder, dataset)
        results: dict[str, MethodResult | None] = {}
        for mode in METHODS:
            if mode != "bm25" and embedder is None:
                results[mode] = None
                continue
            scores: dict[str, float] = {}
            latencies: list[list[float]] = []
            for cutoff, names in sorted(by_cutoff.items()):
                depth = CHUNKS_PER_DOCUMENT * cutoff
                run, seconds = run_queries(searcher, dataset, mode, vectors, depth, progress)
                scores.update(evaluate(run, dataset.qrels, names))
                latencies.append(seconds)
            results[mode] = MethodResult(
                metrics={name: scores[name] for name in metrics},
                latency_p50_ms=float(np.percentile(latencies[0], 50) * 1000),
                latency_p95_ms=float(np.percentile(latencies[0], 95) * 1000),
            )
    finally:
        store.close()
    return RetrievalReport(
        index_path=index_path,
        index=status,
        embedder=embedder.name if embedder else None,
        query_embedder=searcher.embedder.name if searcher.embedder else None,
        queries=len(dataset.queries),
        results=results,
    )


def index_key(directory: str | Path) -> str:
    """The cache folder's name: the collection's folder name and a digest of its corpus
    and of how it is chunked, so an edited corpus or new chunking gets a fresh index."""
    corpus = Path(directory) / "corpus.jsonl"
    digest = hashlib.sha256(
        f"v{_INDEX_VERSION} chunks {DEFAULT_CHUNK_SIZE}/{DEFAULT_OVERLAP}\n".encode()
    )
    with corpus.open("rb") as data:
        while block := data.read(1 << 20):
            digest.update(block)
    return f"{Path(directory).resolve().name}-{digest.hexdigest()[:16]}"


def build_index(
    store: Store,
    dataset: BeirDataset,
    embedder: Embedder | None,
    *,
    progress: Progress | None = None,
) -> IndexStatus:
    """Ingest the corpus documents the store lacks, then embed the chunks without a vector."""
    stored = {record.source for record in store.list_documents(EVAL_OWNER)}
    missing = [doc for doc_id, doc in dataset.corpus.items() if doc_id not in stored]
    for done, doc in enumerate(missing, 1):
        _add(store, doc)
        if progress:
            progress(done, len(missing), "indexing")
    embedded = embed_pending(store, EVAL_OWNER, embedder, progress=progress) if embedder else 0
    records = store.list_documents(EVAL_OWNER)
    return IndexStatus(
        documents=len(records),
        chunks=sum(record.chunk_count for record in records),
        added=len(missing),
        embedded=embedded,
    )


def run_queries(
    searcher: HybridSearcher,
    dataset: BeirDataset,
    mode: Mode,
    vectors: Mapping[str, np.ndarray] | None,
    depth: int,
    progress: Progress | None = None,
) -> tuple[dict[str, list[str]], list[float]]:
    """Each query's ranking of corpus ids (best chunk first) and each search's duration."""
    corpus_ids = {r.id: r.source or "" for r in searcher.store.list_documents(EVAL_OWNER)}

    def search(query_id: str) -> list[str]:
        ranked = searcher.rank(
            EVAL_OWNER,
            dataset.queries[query_id],
            k=depth,
            mode=mode,
            query_vector=None if vectors is None else vectors[query_id],
        )
        return [corpus_ids[hit.doc_id] for hit in ranked]

    search(next(iter(dataset.queries)))  # warm-up: loads the vectors into memory
    run: dict[str, list[str]] = {}
    seconds: list[float] = []
    for done, query_id in enumerate(dataset.queries, 1):
        start = time.perf_counter()
        run[query_id] = search(query_id)
        seconds.append(time.perf_counter() - start)
        if progress:
            progress(done, len(dataset.queries), mode)
    return run, seconds


def _metrics_by_cutoff(metrics: Sequence[str]) -> dict[int, list[str]]:
    grouped: dict[int, list[str]] = {}
    for name in metrics:
        cutoff = name.partition("@")[2]
        if not cutoff.isdigit() or int(cutoff) < 1:
            raise ConfigError(f"metrics are named like ndcg@10, got {name!r}")
        grouped.setdefault(int(cutoff), []).append(name)
    if not grouped:
        raise ConfigError("no metrics to report")
    return grouped


def _add(store: Store, doc: BeirDocument) -> None:
    text = doc.text
    document = ParsedDocument(
        title=doc.title,
        text=text,
        blocks=(Block(page=1, start=0, end=len(text)),),
        page_count=1,
        media_type="text/plain",
    )
    # The id is part of the identity: two corpus entries with the same text stay two documents.
    digest = hashlib.sha256(f"{doc.id}\0{doc.title}\0{text}".encode()).hexdigest()
    chunks = chunk_document(document, doc_hash=digest)
    store.add_document(EVAL_OWNER, document, chunks, content_hash=digest, source=doc.id)


def _query_vectors(embedder: Embedder | None, dataset: BeirDataset) -> dict[str, np.ndarray] | None:
    if embedder is None:
        return None
    ids = list(dataset.queries)
    matrix = embedder.embed([dataset.queries[query_id] for query_id in ids])
    return dict(zip(ids, matrix, strict=True))


__all__ = [
    "EVAL_OWNER",
    "METHODS",
    "IndexStatus",
    "MethodResult",
    "RetrievalReport",
    "build_index",
    "evaluate_retrieval",
    "index_key",
    "run_queries",
]
