"""How to fuse BM25 and vectors, tuned on half the queries and checked on the other half.

``python bench/embeddings_fusion.py [--data DIR] [--embedder SPEC] [--candidates N]``

Uses the index ``docuchat eval retrieval`` caches for the collection (built on
first use), takes each query's BM25 and vector candidates from the store once,
then fuses them every way in the grid: reciprocal rank fusion over ``k`` and
the BM25 weight, and convex combination of min-max scaled scores over the
BM25 share. The queries are split in two at random (``--seed``): each family's
best setting on the tuning half is then scored on the held-out half, next to
the untuned defaults (RRF k=60 with equal weights; equal weights for convex).
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from docuchat.config import default_home
from docuchat.embeddings import get_embedder
from docuchat.evals.beir import BeirDataset, evaluate, load_beir
from docuchat.evals.retrieval import EVAL_OWNER, build_index, index_key
from docuchat.search.fusion import Fused, reciprocal_rank_fusion
from docuchat.search.fusion_convex import convex_fusion
from docuchat.store import Hit, open_store

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "scifact"
Candidates = dict[str, dict[str, list[Hit]]]  # query id -> method -> hits, best first
Fusion = Callable[[Mapping[str, Sequence[Hit]]], list[Fused]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--embedder", default="minilm-onnx")
    parser.add_argument("--candidates", type=int, default=100, help="hits per method")
    parser.add_argument("--cache-dir", type=Path, default=default_home() / "eval")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    dataset = load_beir(args.data)
    candidates, corpus_id = _candidates(
        args.data, dataset, args.embedder, args.cache_dir, args.candidates
    )
    query_ids = sorted(dataset.queries)
    random.Random(args.seed).shuffle(query_ids)
    halves = {"tune": query_ids[::2], "check": query_ids[1::2], "all": query_ids}

    def score(fusion: Fusion, half: str) -> float:
        run = {q: [corpus_id[f.id] for f in fusion(candidates[q])] for q in halves[half]}
        qrels = {q: dataset.qrels[q] for q in halves[half]}
        return evaluate(run, qrels, ["ndcg@10"])["ndcg@10"]

    families = {"rrf": _rrf_grid(), "convex": _convex_grid()}
    singles = {"bm25 alone": _single("bm25"), "vector alone": _single("vector")}
    print(
        f"{len(query_ids)} queries ({len(halves['tune'])} tune / {len(halves['check'])} check),"
        f" {args.candidates} candidates per method, embedder {args.embedder}\n"
    )
    print("| fusion | setting | nDCG@10 tune | nDCG@10 check | nDCG@10 all |")
    print("|---|---|---|---|---|")
    for name, fusion in singles.items():
        print(f"| {name} | | {_row(score, fusion)} |")
    for family, grid in families.items():
        default_label, default = grid[0]
        print(f"| {family} | {default_label} (default) | {_row(score, default)} |")
        label, best = max(grid, key=lambda setting: score(setting[1], "tune"))
        print(f"| {family} | {label} (best on tune) | {_row(score, best)} |")


def _candidates(
    data: Path, dataset: BeirDataset, spec: str, cache_root: Path, depth: int
) -> tuple[Candidates, dict[str, str]]:
    """Each query's hits per method, and the corpus id of every chunk among them."""
    embedder = get_embedder(spec)
    assert embedder is not None, "the fusion benchmark needs an embedder"
    store = open_store(cache_root / index_key(data) / "index.db")
    try:
        build_index(store, dataset, embedder)
        ids = list(dataset.queries)
        vectors = embedder.embed([dataset.queries[q] for q in ids])
        candidates = {
            q: {
                "bm25": store.search_bm25(EVAL_OWNER, dataset.queries[q], k=depth),
                "vector": store.search_vectors(EVAL_OWNER, embedder.name, vector, k=depth),
            }
            for q, vector in zip(ids, vectors, strict=True)
        }
        source = {r.id: r.source or "" for r in store.list_documents(EVAL_OWNER)}
    finally:
        store.close()
    chunk_to_corpus_id = {
        hit.chunk_id: source[hit.doc_id]
        for lists in candidates.values()
        for hits in lists.values()
        for hit in hits
    }
    return candidates, chunk_to_corpus_id


def _single(method: str) -> Fusion:
    return lambda lists: [Fused(h.chunk_id, h.score, {method: 1}) for h in lists[method]]


def _rrf_grid() -> list[tuple[str, Fusion]]:
    def rrf(k: int, bm25_weight: float) -> Fusion:
        return lambda lists: reciprocal_rank_fusion(
            {m: [h.chunk_id for h in hits] for m, hits in lists.items()},
            weights={"bm25": bm25_weight},
            rrf_k=k,
        )

    settings = [(60, 1.0)] + [
        (k, w) for k in (5, 10, 20, 30, 60, 100) for w in (0.5, 1.0, 1.5, 2.0)
    ]
    return [(f"k={k}, bm25 weight {w}", rrf(k, w)) for k, w in settings]


def _convex_grid() -> list[tuple[str, Fusion]]:
    def convex(share: float) -> Fusion:
        return lambda lists: convex_fusion(
            {m: [(h.chunk_id, h.score) for h in hits] for m, hits in lists.items()},
            weights={"bm25": share, "vector": 1 - share},
        )

    shares = [0.5] + [round(0.05 * i, 2) for i in range(4, 17)]
    return [(f"bm25 share {share}", convex(share)) for share in shares]


def _row(score: Callable[[Fusion, str], float], fusion: Fusion) -> str:
    return " | ".join(f"{score(fusion, half):.4f}" for half in ("tune", "check", "all"))


if __name__ == "__main__":
    main()
