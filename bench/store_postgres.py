"""PostgreSQL against SQLite on SciFact: ``python bench/store_postgres.py [--json]``.

Both stores are filled with the same 5,183 abstracts, cut as ``docuchat eval
retrieval`` cuts them, and given the same vectors; then every test query runs
through ``HybridSearcher`` on each, modes and stores taking turns, and this
reports for each: nDCG@10, recall@10 and the p50/p95 latency of the search the
app runs (the best 30 chunks), the time to ingest the collection, and for
PostgreSQL the HNSW index's recall@10 against exact search and its latency.

Vectors come from the ``docuchat eval retrieval`` cache where it holds them
(``--vectors-from``, its ``index.db``), else from the embedder; query vectors
always come from the embedder, before any clock starts. PostgreSQL is a
throwaway pgserver (PostgreSQL 16 + pgvector) unless ``--db`` names a server.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import tempfile
import time
import warnings
from collections.abc import Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

from docuchat.embeddings import Embedder, get_embedder
from docuchat.evals.beir import BeirDataset, evaluate, load_beir
from docuchat.evals.retrieval import EVAL_OWNER, build_index, run_queries
from docuchat.search import HybridSearcher, Mode
from docuchat.store import SQLiteStore, Store
from docuchat.store.postgres import PostgresStore

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "scifact"
CACHE = Path.home() / ".local/share/docuchat/eval"
MODES: tuple[Mode, ...] = ("bm25", "dense", "hybrid")
DEPTH = 30  # the best 30 chunks: what the eval and the app ask for nDCG@10
METRICS = ("ndcg@10", "recall@10")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--embedder", default="minilm-onnx")
    parser.add_argument("--vectors-from", type=Path, default=None, help="an eval cache index.db")
    parser.add_argument("--db", default=None, help="a postgresql:// URL (default: pgserver)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    embedder = get_embedder(args.embedder)
    assert embedder is not None, "the benchmark needs an embedder"
    vectors_from = args.vectors_from or next(iter(CACHE.glob("scifact-*/index.db")), None)
    with tempfile.TemporaryDirectory() as folder:
        url = args.db or _pgserver(Path(folder) / "pg")
        result = run(load_beir(args.data), embedder, vectors_from, Path(folder), url, args.rounds)
    print(json.dumps(result, indent=2) if args.json else _table(result))


def run(
    dataset: BeirDataset,
    embedder: Embedder,
    vectors_from: Path | None,
    folder: Path,
    url: str,
    rounds: int,
) -> dict[str, Any]:
    cached = _cached_vectors(vectors_from, embedder.name)
    stores: dict[str, Store] = {
        "sqlite": SQLiteStore(folder / "scifact.db"),
        "postgres": PostgresStore(url),
    }
    result: dict[str, Any] = {"chunks": 0, "cached_vectors": len(cached), "stores": {}}
    for name, store in stores.items():
        started = time.perf_counter()
        status = build_index(store, dataset, None)
        ingest_s = time.perf_counter() - started
        _put_vectors(store, embedder, cached)
        result["chunks"] = status.chunks
        result["stores"][name] = {"ingest_s": round(ingest_s, 1), "modes": {}}
    pg = stores["postgres"]
    assert isinstance(pg, PostgresStore)
    _analyze(url)
    matrix = embedder.embed(list(dataset.queries.values()))
    queries = dict(zip(dataset.queries, matrix, strict=True))
    timings: dict[tuple[str, str], list[float]] = {}
    for _ in range(rounds):
        for mode in MODES:
            for name, store in stores.items():
                searcher = HybridSearcher(store, embedder)
                ranking, seconds = run_queries(searcher, dataset, mode, queries, DEPTH)
                timings.setdefault((name, mode), []).extend(seconds)
                scores = evaluate(ranking, dataset.qrels, METRICS)
                result["stores"][name]["modes"][mode] = {
                    metric: round(value, 4) for metric, value in scores.items()
                }
    for (name, mode), seconds in timings.items():
        result["stores"][name]["modes"][mode] |= _latency(seconds)
    result["hnsw"] = _hnsw(pg, embedder.name, list(queries.values()))
    for store in stores.values():
        store.close()
    return result


def _hnsw(store: PostgresStore, model: str, queries: list[np.ndarray]) -> dict[str, Any]:
    """Recall@10 of HNSW (approximate) against exact search, and both latencies."""
    started = time.perf_counter()
    store.create_vector_index(model)
    build_s = time.perf_counter() - started

    def search(approximate: bool) -> tuple[list[set[str]], list[float]]:
        found, seconds = [], []
        for query in queries:
            start = time.perf_counter()
            hits = store.search_vectors(EVAL_OWNER, model, query, k=10, approximate=approximate)
            seconds.append(time.perf_counter() - start)
            found.append({hit.chunk_id for hit in hits})
        return found, seconds

    exact, exact_s = search(False)
    approximate, approximate_s = search(True)
    recall = statistics.fmean(len(a & e) / 10 for a, e in zip(approximate, exact, strict=True))
    return {
        "build_s": round(build_s, 1),
        "recall@10": round(recall, 4),
        "exact": _latency(exact_s),
        "approximate": _latency(approximate_s),
    }


def _latency(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2),
    }


def _cached_vectors(index: Path | None, model: str) -> Mapping[str, np.ndarray]:
    if index is None or not index.exists():
        return {}
    with closing(sqlite3.connect(index)) as db:
        rows = db.execute(
            "SELECT text_hash, vector FROM embeddings WHERE model = ?", (model,)
        ).fetchall()
    return {text_hash: np.frombuffer(blob, np.float32) for text_hash, blob in rows}


def _put_vectors(store: Store, embedder: Embedder, cached: Mapping[str, np.ndarray]) -> None:
    """The cached vector of each chunk text, or the embedder's where there is none."""
    for batch in store.texts_to_embed(EVAL_OWNER, embedder.name, batch_size=512):
        missing = [item.text for item in batch if item.text_hash not in cached]
        fresh = iter(embedder.embed(missing) if missing else [])
        vectors = np.stack(
            [cached[item.text_hash] if item.text_hash in cached else next(fresh) for item in batch]
        )
        store.put_embeddings(EVAL_OWNER, embedder.name, [item.text_hash for item in batch], vectors)


def _analyze(url: str) -> None:
    """What autovacuum would do shortly after a bulk load: statistics and visibility map."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


def _pgserver(folder: Path) -> str:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR")
        import pgserver

    uri: str = pgserver.get_server(folder, cleanup_mode="stop").get_uri()
    return uri


def _table(result: dict[str, Any]) -> str:
    lines = [
        f"SciFact: {result['chunks']} chunks, vectors from the cache: {result['cached_vectors']}",
        "",
        "| store | mode | nDCG@10 | recall@10 | p50 ms | p95 ms |",
        "|---|---|---|---|---|---|",
    ]
    for mode in MODES:
        for name, store in result["stores"].items():
            m = store["modes"][mode]
            lines.append(
                f"| {name} | {mode} | {m['ndcg@10']:.4f} | {m['recall@10']:.4f}"
                f" | {m['p50_ms']} | {m['p95_ms']} |"
            )
    lines.append("")
    for name, store in result["stores"].items():
        lines.append(f"ingest {name}: {store['ingest_s']} s")
    hnsw = result["hnsw"]
    lines.append(
        f"HNSW: built in {hnsw['build_s']} s, recall@10 {hnsw['recall@10']},"
        f" p50 {hnsw['approximate']['p50_ms']} ms against exact {hnsw['exact']['p50_ms']} ms"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
