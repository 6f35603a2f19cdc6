"""Search at SciFact size: ``python bench/search_scifact.py [--embedder SPEC] [--json]``.

Uses the index that ``docuchat eval retrieval`` builds and caches (the 5,183
SciFact abstracts cut by the real chunker, with their vectors), building or
completing it only if needed, then measures for BM25, dense and hybrid search:

- query latency p50/p95 in milliseconds, the query vectors computed beforehand
  (the goal excludes query embedding): ``rank`` gives ids, fused scores and
  ranks; ``search`` adds reading the chunks back and highlighted snippets;
- retrieval quality on the 300 test queries: nDCG@10, recall@10, recall@100,
  MRR@10 (documents ranked by their best chunk);
- recall@10 of the approximate (IVF) vector index against exact search, for
  several nprobe (of about sqrt(chunks) lists);
- the same for BM25 ranked by FTS5's ``bm25()`` in SQL (what owners too large
  for the in-memory index get), and how many queries' top 100 it ranks exactly
  as the in-memory index does.

The default embedder is the hashing one at 384 dimensions: latency does not
depend on where vectors come from, but only a real model (``minilm-onnx``)
makes the dense and hybrid quality figures meaningful. With bm25s installed
the same queries also run through bm25s for comparison.
"""

from __future__ import annotations

import argparse
import json
import time
from functools import partial
from pathlib import Path
from typing import Any

from docuchat.config import Settings
from docuchat.embeddings import get_embedder
from docuchat.evals.beir import evaluate, load_beir
from docuchat.evals.retrieval import EVAL_OWNER, build_index, index_key
from docuchat.search import HybridConfig, HybridSearcher, Mode, RankedChunk, SearchResult
from docuchat.store import SQLiteStore, Vector
from search_common import latency_ms

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "scifact"
OWNER = EVAL_OWNER


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--embedder", default="hash:384")
    parser.add_argument(
        "--cache-dir", type=Path, help="where eval retrieval caches indexes (its default)"
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cache_root = args.cache_dir or Settings().home / "eval"
    result = run(
        args.data, args.embedder, cache_root / index_key(args.data) / "index.db", args.repeat
    )
    print(json.dumps(result, indent=2) if args.json else _table(result))


def run(data: Path, embedder_spec: str, index_path: Path, repeat: int) -> dict[str, Any]:
    dataset = load_beir(data)
    embedder = get_embedder(embedder_spec)
    assert embedder is not None, "the benchmark needs an embedder"
    store = SQLiteStore(index_path)
    fts5_store = SQLiteStore(index_path, memory_bm25_max_chunks=0)
    try:
        started = time.perf_counter()
        status = build_index(store, dataset, embedder)
        index_s = time.perf_counter() - started
        beir_ids = {record.id: str(record.source) for record in store.list_documents(OWNER)}
        queries = list(dataset.queries.items())
        vectors = embedder.embed([text for _, text in queries])
        searchers = {
            "": HybridSearcher(store, embedder),
            "_rrf": HybridSearcher(store, embedder, HybridConfig(fusion="rrf")),
            "_fts5": HybridSearcher(fts5_store, embedder),
        }
        started = time.perf_counter()
        store.search_bm25(OWNER, "warm up")
        bm25_build_s = time.perf_counter() - started
        result: dict[str, Any] = {
            "documents": status.documents,
            "chunks": status.chunks,
            "embedder": embedder.name,
            "queries": len(queries),
            "index_s": round(index_s, 2),
            "added": status.added,
            "embedded": status.embedded,
            "bm25_index_build_s": round(bm25_build_s, 2),
        }
        inputs = list(range(len(queries)))

        def rank(i: int, searcher: HybridSearcher, mode: Mode, k: int) -> list[RankedChunk]:
            return searcher.rank(OWNER, queries[i][1], k=k, mode=mode, query_vector=vectors[i])

        def search(i: int, searcher: HybridSearcher, mode: Mode) -> list[SearchResult]:
            return searcher.search(OWNER, queries[i][1], k=10, mode=mode, query_vector=vectors[i])

        runs: list[tuple[Mode, str]] = [
            ("bm25", ""),
            ("dense", ""),
            ("hybrid", ""),
            ("hybrid", "_rrf"),
            ("bm25", "_fts5"),
            ("hybrid", "_fts5"),
        ]
        for mode, variant in runs:
            searcher = searchers[variant]
            ranked = {
                queries[i][0]: [beir_ids[r.doc_id] for r in rank(i, searcher, mode, 100)]
                for i in inputs
            }
            result[mode + variant] = {
                **{k: round(v, 4) for k, v in evaluate(ranked, dataset.qrels).items()},
                "rank_k10": latency_ms(
                    partial(rank, searcher=searcher, mode=mode, k=10), inputs, repeat
                ),
                "search_k10": latency_ms(
                    partial(search, searcher=searcher, mode=mode), inputs, repeat
                ),
            }
        result["bm25_same_top100_as_fts5"] = sum(
            _ids(store.search_bm25(OWNER, text, k=100))
            == _ids(fts5_store.search_bm25(OWNER, text, k=100))
            for _, text in queries
        )
        result["ivf_recall@10"] = _ivf_recall(store.path, embedder.name, vectors)
    finally:
        store.close()
        fts5_store.close()
    result["bm25s"] = _bm25s(
        dataset, [text for _, text in queries], [qid for qid, _ in queries], repeat
    )
    return result


def _ids(hits: list[Any]) -> list[str]:
    return [hit.chunk_id for hit in hits]


def _ivf_recall(path: Path, model: str, vectors: Vector) -> dict[str, float]:
    """Recall@10 of the IVF index against exact search, on these vectors and queries."""
    store = SQLiteStore(path, approximate_min_vectors=0)
    exact = [{h.chunk_id for h in store.search_vectors(OWNER, model, v)} for v in vectors]
    recall = {}
    for nprobe in (1, 2, 4, 8, 16):
        store.nprobe = nprobe
        found = [
            {h.chunk_id for h in store.search_vectors(OWNER, model, v, approximate=True)}
            for v in vectors
        ]
        recall[f"nprobe={nprobe}"] = round(
            sum(len(f & e) / 10 for f, e in zip(found, exact, strict=True)) / len(exact), 3
        )
    store.close()
    return recall


def _bm25s(dataset: Any, texts: list[str], qids: list[str], repeat: int) -> dict[str, Any] | None:
    try:
        import bm25s
    except ImportError:
        return None
    try:
        import Stemmer  # type: ignore[import-not-found]

        stemmer = Stemmer.Stemmer("english")
    except ImportError:
        stemmer = None
    ids = list(dataset.corpus)
    corpus = [f"{d.title} {d.text}" for d in dataset.corpus.values()]
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize(corpus, stopwords="en", stemmer=stemmer, show_progress=False),
        show_progress=False,
    )

    def query(i: int, k: int = 100) -> list[str]:
        tokens = bm25s.tokenize([texts[i]], stopwords="en", stemmer=stemmer, show_progress=False)
        docs, _ = retriever.retrieve(tokens, k=k, show_progress=False, n_threads=1)
        return [ids[j] for j in docs[0]]

    inputs = list(range(len(texts)))
    scores = evaluate({qids[i]: query(i) for i in inputs}, dataset.qrels)
    return {
        "stemmer": stemmer is not None,
        **{k: round(v, 4) for k, v in scores.items()},
        "query_k10": latency_ms(partial(query, k=10), inputs, repeat),
    }


def _table(result: dict[str, Any]) -> str:
    lines = [
        f"{result['documents']} documents, {result['chunks']} chunks, embedder"
        f" {result['embedder']} (index ready in {result['index_s']} s: {result['added']}"
        f" documents added, {result['embedded']} texts embedded; in-memory BM25 index built in"
        f" {result['bm25_index_build_s']} s). Latency in ms: wall p50 / p95 (CPU p50).",
        "",
        "| method | nDCG@10 | R@10 | R@100 | MRR@10 | rank k=10 | search k=10 |",
        "|---|---|---|---|---|---|---|",
    ]
    rows = [
        (name, result[key], result[key]["rank_k10"], result[key]["search_k10"])
        for key, name in [
            ("bm25", "bm25"),
            ("dense", "dense"),
            ("hybrid", "hybrid (convex)"),
            ("hybrid_rrf", "hybrid (RRF, k=60)"),
            ("bm25_fts5", "bm25 by FTS5 bm25()"),
            ("hybrid_fts5", "hybrid (convex), BM25 by FTS5"),
        ]
    ]
    if result["bm25s"]:
        name = "bm25s (stemmed)" if result["bm25s"]["stemmer"] else "bm25s"
        rows.append((name, result["bm25s"], result["bm25s"]["query_k10"], None))
    for name, m, ranked, searched in rows:
        lines.append(
            f"| {name} | {m['ndcg@10']:.3f} | {m['recall@10']:.3f} | {m['recall@100']:.3f}"
            f" | {m['mrr@10']:.3f} | {_latency(ranked)} | {_latency(searched)} |"
        )
    recall = ", ".join(f"{name} {value}" for name, value in result["ivf_recall@10"].items())
    lines += [
        "",
        f"In-memory BM25 top 100 equal to FTS5 bm25()'s: {result['bm25_same_top100_as_fts5']}"
        f" queries of {result['queries']}.",
        f"IVF recall@10 against exact search: {recall}",
    ]
    return "\n".join(lines)


def _latency(timing: dict[str, float] | None) -> str:
    if timing is None:
        return ""
    return f"{timing['p50_ms']:.2f} / {timing['p95_ms']:.2f} ({timing['cpu_p50_ms']:.2f})"


if __name__ == "__main__":
    main()
