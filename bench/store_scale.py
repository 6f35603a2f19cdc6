"""The store at scale: ``python bench/store_scale.py [--chunks 1000000] [--json]``.

Builds (once; it is kept at ``--db``) a store of synthetic chunks: Zipf-distributed
made-up words, about 60 per chunk, 1,000 chunks per document, each chunk with a
random unit vector of ``--dim`` dimensions. Then measures:

- ingestion: chunks per second through ``add_document`` (text and BM25 index) and
  vectors per second through ``put_embeddings``;
- exact vector search p50/p95 (k=10) against the memory-bandwidth floor: the
  fastest of a NumPy sum and a max over a matrix of the same size;
- the IVF index: build time, p50 and recall@10 against exact search, on these
  random vectors (the worst case: no structure) and, in memory, on vectors near
  a low-dimensional subspace (see bench/search_scifact.py for real embeddings);
- BM25 p50/p95 (k=10) for queries of 3 to 6 words of a random chunk, side by
  side with bm25s on the same texts (if installed).

Memory: the vector matrix alone is chunks x dim x 4 bytes (1.5 GB at 1M x 384).
"""

from __future__ import annotations

import argparse
import gc
import json
import time
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from docuchat.corpus.types import Block, Chunk, ParsedDocument
from docuchat.store import SQLiteStore
from docuchat.store.fts_query import STOPWORDS
from docuchat.store.sqlite import DEFAULT_NPROBE, text_hash
from docuchat.store.vector_index import IVFIndex, one_blas_thread, search, search_ranges
from search_common import latency_ms

OWNER, MODEL = "bench", "random"
CHUNKS_PER_DOC = 1000
VOCABULARY = 50_000
WORDS_PER_CHUNK = (40, 80)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--db", type=Path, default=None, help="default: /tmp/docuchat-bench/")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--skip-clustered", action="store_true")
    parser.add_argument("--skip-bm25s", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    db = args.db or Path("/tmp/docuchat-bench") / f"scale-{args.chunks}x{args.dim}.db"
    result = run(
        db,
        args.chunks,
        args.dim,
        args.queries,
        clustered=not args.skip_clustered,
        bm25s=not args.skip_bm25s,
    )
    print(json.dumps(result, indent=2) if args.json else _report(result))


def run(
    db: Path, chunks: int, dim: int, queries: int, *, clustered: bool, bm25s: bool
) -> dict[str, Any]:
    result: dict[str, Any] = {"chunks": chunks, "dim": dim, "db": str(db)}
    if not db.exists():
        result["ingest"] = _build(db, chunks, dim)
    store = SQLiteStore(db)
    rng = np.random.default_rng(7)
    vectors = _unit(rng.standard_normal((queries, dim), dtype=np.float32))

    started = time.perf_counter()
    store.search_vectors(OWNER, MODEL, vectors[0])
    result["matrix_load_s"] = round(time.perf_counter() - started, 2)
    exact = [store.search_vectors(OWNER, MODEL, v, k=10) for v in vectors]
    result["vector_exact"] = latency_ms(
        lambda i: store.search_vectors(OWNER, MODEL, vectors[i], k=10), range(queries)
    )
    result["floor"] = _bandwidth_floor(chunks, dim)

    started = time.perf_counter()
    store.search_vectors(OWNER, MODEL, vectors[0], approximate=True)
    result["ivf_build_s"] = round(time.perf_counter() - started, 2)
    approximate = [store.search_vectors(OWNER, MODEL, v, k=10, approximate=True) for v in vectors]
    result["vector_ivf"] = {
        "nprobe": store.nprobe,
        "recall@10": _recall(
            [[h.chunk_id for h in hits] for hits in approximate],
            [[h.chunk_id for h in hits] for hits in exact],
        ),
        **latency_ms(
            lambda i: store.search_vectors(OWNER, MODEL, vectors[i], k=10, approximate=True),
            range(queries),
        ),
    }
    texts = _query_texts(store, queries, rng)
    result["bm25"] = latency_ms(lambda q: store.search_bm25(OWNER, q, k=10), texts)
    store.close()  # drops its matrix
    gc.collect()
    if clustered:
        result["ivf_clustered"] = _clustered_ivf(chunks, dim, queries)
    result["bm25s"] = _bm25s(chunks, texts) if bm25s else None
    return result


def _build(db: Path, chunks: int, dim: int) -> dict[str, float]:
    db.parent.mkdir(parents=True, exist_ok=True)
    store = SQLiteStore(db)
    started = time.perf_counter()
    hashes = []
    for number, (parsed, doc_chunks) in enumerate(_documents(chunks)):
        store.add_document(OWNER, parsed, doc_chunks, content_hash=f"synthetic-{number}")
        hashes += [text_hash(c.text) for c in doc_chunks]
    text_s = time.perf_counter() - started
    rng = np.random.default_rng(1)
    started = time.perf_counter()
    for start in range(0, len(hashes), 20_000):
        batch = hashes[start : start + 20_000]
        store.put_embeddings(
            OWNER, MODEL, batch, _unit(rng.standard_normal((len(batch), dim), dtype=np.float32))
        )
    vector_s = time.perf_counter() - started
    store.close()
    return {
        "text_chunks_per_s": round(chunks / text_s),
        "text_s": round(text_s, 1),
        "vectors_per_s": round(chunks / vector_s),
        "vectors_s": round(vector_s, 1),
        "db_gb": round(db.stat().st_size / 1e9, 2),
    }


def _documents(chunks: int) -> Iterator[tuple[ParsedDocument, list[Chunk]]]:
    """Documents of CHUNKS_PER_DOC chunks of Zipf-distributed words: English stopwords
    are the most frequent ones, as in real text, then made-up words."""
    rng = np.random.default_rng(0)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    made_up = (
        "".join(rng.choice(letters, size=rng.integers(3, 11)))
        for _ in range(VOCABULARY - len(STOPWORDS))
    )
    words = np.array([*sorted(STOPWORDS), *made_up])
    weights = 1.0 / np.arange(1, VOCABULARY + 1) ** 1.07
    weights /= weights.sum()
    for number, first in enumerate(range(0, chunks, CHUNKS_PER_DOC)):
        count = min(CHUNKS_PER_DOC, chunks - first)
        lengths = rng.integers(*WORDS_PER_CHUNK, size=count)
        ids = rng.choice(VOCABULARY, size=int(lengths.sum()), p=weights)
        texts = [" ".join(part) for part in np.split(words[ids], np.cumsum(lengths)[:-1])]
        text = "\n\n".join(texts)
        spans, offset = [], 0
        for chunk_text in texts:
            spans.append((offset, offset + len(chunk_text)))
            offset += len(chunk_text) + 2
        parsed = ParsedDocument(
            title=f"Synthetic document {number}",
            text=text,
            blocks=tuple(Block(1, start, end) for start, end in spans),
            page_count=1,
            media_type="text/plain",
        )
        yield (
            parsed,
            [
                Chunk(f"s{number}-{i}", i, chunk_text, start, end, 1, 1)
                for i, (chunk_text, (start, end)) in enumerate(zip(texts, spans, strict=True))
            ],
        )


def _bandwidth_floor(chunks: int, dim: int) -> dict[str, float]:
    """Milliseconds to read a matrix of the searched size once: the exact search's floor."""
    matrix = np.ones((chunks, dim), dtype=np.float32)
    query = np.ones(dim, dtype=np.float32)
    timings = {
        "sum_ms": latency_ms(lambda _: matrix.sum(), range(5))["p50_ms"],
        "max_ms": latency_ms(lambda _: matrix.max(), range(5))["p50_ms"],
    }
    with one_blas_thread():
        timings["matvec_ms"] = latency_ms(lambda _: matrix @ query, range(5))["p50_ms"]
    timings["floor_ms"] = min(timings["sum_ms"], timings["max_ms"])
    timings["gb_per_s"] = round(matrix.nbytes / timings["floor_ms"] / 1e6, 2)
    return timings


def _clustered_ivf(chunks: int, dim: int, queries: int) -> dict[str, Any]:
    """IVF recall and speed (in memory) on vectors with structure, for several nprobe.

    Unit vectors near a random 32-dimensional subspace: a hard case for IVF
    (a continuum, no clear clusters), unlike random vectors (no structure).
    """
    rng = np.random.default_rng(3)
    basis = rng.standard_normal((32, dim), dtype=np.float32)

    def near_subspace(n: int) -> npt.NDArray[np.float32]:
        latent = rng.standard_normal((n, 32), dtype=np.float32)
        return _unit(latent @ basis + 0.5 * rng.standard_normal((n, dim), dtype=np.float32))

    matrix = np.empty((chunks, dim), dtype=np.float32)
    for start in range(0, chunks, 100_000):
        matrix[start : start + 100_000] = near_subspace(min(100_000, chunks - start))
    asked = near_subspace(queries)
    started = time.perf_counter()
    index = IVFIndex.build(matrix)
    matrix = matrix[index.order]  # lists become contiguous row ranges, as in the store
    result: dict[str, Any] = {
        "lists": len(index.centroids),
        "build_s": round(time.perf_counter() - started, 1),
        "exact": latency_ms(lambda i: search(matrix, asked[i], 10), range(queries)),
    }

    def probe(i: int, nprobe: int) -> list[int]:
        ranges = index.probe(asked[i], nprobe)
        rows: list[int] = search_ranges(matrix, asked[i], 10, ranges)[0].tolist()
        return rows

    exact = [search(matrix, q, 10)[0].tolist() for q in asked]
    for nprobe in (8, 16, DEFAULT_NPROBE, 64, 128):
        found = [probe(i, nprobe) for i in range(queries)]
        result[f"nprobe={nprobe}"] = {
            "recall@10": _recall(found, exact),
            **latency_ms(partial(probe, nprobe=nprobe), range(queries)),
        }
    return result


def _query_texts(store: SQLiteStore, count: int, rng: np.random.Generator) -> list[str]:
    """3 to 6 consecutive words from random chunks, read through the store's API."""
    documents = store.list_documents(OWNER)
    texts = []
    for _ in range(count):
        doc = documents[int(rng.integers(len(documents)))]
        start = int(rng.integers(doc.char_count - 200))
        words = store.document_text(OWNER, doc.id, start, start + 200).split()[1:]
        texts.append(" ".join(words[: int(rng.integers(3, 7))]))
    return texts


def _bm25s(chunks: int, texts: list[str]) -> dict[str, Any] | None:
    try:
        import bm25s
    except ImportError:
        return None
    corpus = [
        text for parsed, doc_chunks in _documents(chunks) for text in (c.text for c in doc_chunks)
    ]
    started = time.perf_counter()
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(corpus, show_progress=False), show_progress=False)
    index_s = time.perf_counter() - started
    del corpus
    gc.collect()

    def query(text: str) -> object:
        tokens = bm25s.tokenize([text], show_progress=False)
        return retriever.retrieve(tokens, k=10, show_progress=False, n_threads=1)

    return {"index_s": round(index_s, 1), **latency_ms(query, texts)}


def _recall(found: Sequence[Sequence[object]], exact: Sequence[Sequence[object]]) -> float:
    shares = [len(set(f) & set(e)) / len(e) for f, e in zip(found, exact, strict=True)]
    return round(float(np.mean(shares)), 3)


def _unit(rows: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    rows /= np.linalg.norm(rows, axis=-1, keepdims=True)
    return rows


def _report(r: dict[str, Any]) -> str:
    floor = r["floor"]
    exact = r["vector_exact"]
    lines = [f"{r['chunks']:,} chunks x {r['dim']} dims ({r['db']})"]
    if "ingest" in r:
        i = r["ingest"]
        lines.append(
            f"ingest: {i['text_chunks_per_s']:,} chunks/s text+BM25 ({i['text_s']} s),"
            f" {i['vectors_per_s']:,} vectors/s ({i['vectors_s']} s), file {i['db_gb']} GB"
        )
    lines += [
        f"matrix load (first query): {r['matrix_load_s']} s",
        f"floor: sum {floor['sum_ms']} ms, max {floor['max_ms']} ms ({floor['gb_per_s']} GB/s);"
        f" bare matvec {floor['matvec_ms']} ms",
        f"exact search: p50 {exact['p50_ms']} ms, p95 {exact['p95_ms']} ms"
        f" = {exact['p50_ms'] / floor['floor_ms']:.2f}x the floor",
        f"IVF on random vectors: build {r['ivf_build_s']} s, nprobe {r['vector_ivf']['nprobe']},"
        f" p50 {r['vector_ivf']['p50_ms']} ms, recall@10 {r['vector_ivf']['recall@10']}",
    ]
    if "ivf_clustered" in r:
        c = r["ivf_clustered"]
        lines.append(
            f"IVF on structured vectors: {c['lists']} lists built in {c['build_s']} s;"
            f" exact p50 {c['exact']['p50_ms']} ms"
        )
        for name, probe in c.items():
            if name.startswith("nprobe="):
                lines.append(f"  {name}: p50 {probe['p50_ms']} ms, recall@10 {probe['recall@10']}")
    lines.append(f"BM25 (FTS5): p50 {r['bm25']['p50_ms']} ms, p95 {r['bm25']['p95_ms']} ms")
    if r["bm25s"]:
        b = r["bm25s"]
        lines.append(
            f"bm25s: p50 {b['p50_ms']} ms, p95 {b['p95_ms']} ms (index built in {b['index_s']} s)"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
