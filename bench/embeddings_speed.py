"""Embedder speed and quality on SciFact: ``python bench/embeddings_speed.py [--sample N]``.

For each local embedder (default: ``minilm``, the float32 PyTorch reference,
``minilm-bf16`` and ``minilm-onnx``, the int8 ONNX model):

- speed: SciFact abstracts (title and text) per second on all CPU cores, after
  a warm-up; the embedders take turns for ``--rounds`` rounds and the median
  is reported, so a burst of load elsewhere does not favour one of them;
- agreement: mean and minimum cosine similarity to the first embedder's
  vectors for the same texts;
- quality: nDCG@10 and recall@100 of dense search on the 300 SciFact test
  queries, through ``docuchat eval retrieval``'s code and its cached index,
  so each embedder's vectors are computed once and later runs only query.

Prints a markdown table (``--json`` for the raw figures).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from docuchat.config import default_home
from docuchat.embeddings import Embedder, get_embedder
from docuchat.evals.beir import load_beir
from docuchat.evals.retrieval import evaluate_retrieval

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "scifact"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--embedders", nargs="+", default=["minilm", "minilm-bf16", "minilm-onnx"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sample", type=int, default=256, help="abstracts timed per embedder")
    parser.add_argument("--cache-dir", type=Path, default=default_home() / "eval")
    parser.add_argument("--no-quality", action="store_true", help="time only")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    dataset = load_beir(args.data)
    texts = [f"{d.title}\n\n{d.text}" for d in list(dataset.corpus.values())[: args.sample]]
    embedders: list[Embedder] = []
    for spec in args.embedders:
        embedder = get_embedder(spec)
        assert embedder is not None, f"{spec} is not a local embedder"
        embedder.embed(texts[:8])  # loads the model (and builds the ONNX file the first time)
        embedders.append(embedder)
    speeds, vectors = _race(embedders, texts, args.rounds)
    reference = vectors[embedders[0].name]
    rows: list[dict[str, Any]] = []
    for embedder in embedders:
        cosine = np.sum(vectors[embedder.name] * reference, axis=1)
        row: dict[str, Any] = {
            "embedder": embedder.name,
            "texts_per_s": round(speeds[embedder.name], 1),
            "cosine_mean": round(float(cosine.mean()), 4),
            "cosine_min": round(float(cosine.min()), 4),
        }
        if not args.no_quality:
            report = evaluate_retrieval(args.data, embedder=embedder, cache_root=args.cache_dir)
            dense = report.results["dense"]
            assert dense is not None
            row["dense_ndcg@10"] = round(dense.metrics["ndcg@10"], 4)
            row["dense_recall@100"] = round(dense.metrics["recall@100"], 4)
        rows.append(row)
    print(json.dumps(rows, indent=2) if args.json else _table(rows))


def _race(
    embedders: list[Embedder], texts: list[str], rounds: int
) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """Median texts per second of each embedder, taking turns, and its vectors."""
    speeds: dict[str, list[float]] = {e.name: [] for e in embedders}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(rounds):
        for embedder in embedders:
            started = time.perf_counter()
            vectors[embedder.name] = embedder.embed(texts)
            speeds[embedder.name].append(len(texts) / (time.perf_counter() - started))
    return {name: statistics.median(times) for name, times in speeds.items()}, vectors


def _table(rows: list[dict[str, Any]]) -> str:
    base = rows[0]["texts_per_s"]
    lines = [
        "| embedder | texts/s | speed-up | cosine to first (mean / min) | dense nDCG@10 |"
        " dense R@100 |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['embedder']} | {row['texts_per_s']} | {row['texts_per_s'] / base:.1f}x"
            f" | {row['cosine_mean']} / {row['cosine_min']}"
            f" | {row.get('dense_ndcg@10', '-')} | {row.get('dense_recall@100', '-')} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
