"""``docuchat eval retrieval`` end to end on a tiny BEIR folder, with the hashing embedder."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from docuchat.cli.main import cli
from docuchat.errors import ConfigError
from docuchat.evals.retrieval import evaluate_retrieval

CORPUS = [
    ("d1", "Vitamin D and bones", "Vitamin D deficiency raises the risk of fractures."),
    ("d2", "Coffee", "Drinking coffee late in the day delays sleep."),
    ("d3", "Exercise", "Regular exercise lowers the resting heart rate."),
    ("d4", "Markets", "The stock market fell after the interest rate decision."),
    ("d5", "Microbiome", "Gut bacteria shape immune responses in infants."),
]
# q1's document is BM25's first hit; q2's is its second (d2 matches two of the words, d3 one).
QUERIES = {"q1": "vitamin D fractures", "q2": "coffee sleep heart"}
QRELS = {"q1": "d1", "q2": "d3"}
METHODS = ("bm25", "dense", "hybrid")


@pytest.fixture
def beir(tmp_path: Path) -> Path:
    root = tmp_path / "tiny"
    (root / "qrels").mkdir(parents=True)
    rows = [{"_id": i, "title": title, "text": text} for i, title, text in CORPUS]
    (root / "corpus.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    queries = [{"_id": i, "text": text} for i, text in QUERIES.items()]
    (root / "queries.jsonl").write_text("".join(json.dumps(row) + "\n" for row in queries))
    qrels = "".join(f"{q}\t{d}\t1\n" for q, d in QRELS.items())
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + qrels)
    return root


def run_eval(beir: Path, *options: str) -> Result:
    cache = beir.parent / "cache"
    arguments = ["eval", "retrieval", "--beir", str(beir), "--cache-dir", str(cache), *options]
    return CliRunner().invoke(cli, arguments, catch_exceptions=False)


def scores(result: Result) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    parsed: dict[str, Any] = json.loads(result.stdout)
    return parsed


def without_latency(report: dict[str, Any]) -> dict[str, Any]:
    return {method: {**values, "latency_ms": None} for method, values in report.items()}


def test_json_scores_every_method_and_matches_hand_computed_bm25(beir: Path) -> None:
    report = scores(run_eval(beir, "--embedder", "hash", "--json"))

    assert list(report) == list(METHODS)
    for method in METHODS:
        assert set(report[method]) == {"ndcg@10", "recall@10", "recall@100", "mrr@10", "latency_ms"}
        latency = report[method]["latency_ms"]
        assert 0 < latency["p50"] <= latency["p95"]
        assert report[method]["recall@100"] == 1.0  # five documents: all are retrieved
    # q1 found first, q2 second: nDCG (1 + 1/log2(3)) / 2, MRR (1 + 1/2) / 2.
    assert report["bm25"]["ndcg@10"] == pytest.approx((1 + 1 / math.log2(3)) / 2, abs=1e-4)
    assert report["bm25"]["mrr@10"] == 0.75
    assert report["bm25"]["recall@10"] == 1.0


def test_second_run_reuses_the_cached_index_and_embeddings(beir: Path) -> None:
    first = run_eval(beir, "--embedder", "hash", "--json")
    assert "indexed 5 documents and embedded 5 texts" in first.stderr

    second = run_eval(beir, "--embedder", "hash", "--json")

    assert "reused the cached index and embeddings" in second.stderr
    assert without_latency(scores(second)) == without_latency(scores(first))
    assert len(list((beir.parent / "cache").iterdir())) == 1


def test_another_embedder_reuses_the_index_and_adds_its_vectors(beir: Path) -> None:
    run_eval(beir, "--embedder", "hash", "--json")
    other = run_eval(beir, "--embedder", "hash:64", "--json")
    assert "indexed 0 documents and embedded 5 texts" in other.stderr


def test_a_changed_corpus_gets_a_fresh_index(beir: Path) -> None:
    run_eval(beir, "--embedder", "none", "--json")
    with (beir / "corpus.jsonl").open("a") as corpus:
        corpus.write(json.dumps({"_id": "d6", "title": "New", "text": "A new abstract."}) + "\n")
    result = run_eval(beir, "--embedder", "none", "--json")
    assert "indexed 6 documents" in result.stderr
    assert len(list((beir.parent / "cache").iterdir())) == 2


def test_without_an_embedder_only_bm25_is_scored(beir: Path) -> None:
    report = scores(run_eval(beir, "--embedder", "none", "--json"))
    assert report["dense"] is None and report["hybrid"] is None
    assert report["bm25"]["mrr@10"] == 0.75


def test_table_shows_methods_and_chosen_cutoffs(beir: Path) -> None:
    result = run_eval(beir, "--embedder", "hash", "--k", "1", "--k", "3")
    assert result.exit_code == 0, result.output
    for label in ("bm25", "dense", "hybrid", "ndcg@1", "recall@3", "mrr@3", "p50 ms", "p95 ms"):
        assert label in result.stdout
    assert "ndcg@10" not in result.stdout
    assert "5 documents (5 chunks), 2 queries, embedder hash-256" in result.stdout


def test_a_broken_collection_is_a_clear_error_and_caches_nothing(beir: Path) -> None:
    (beir / "qrels" / "test.tsv").unlink()
    result = run_eval(beir, "--embedder", "hash")
    assert result.exit_code == 1
    assert "cannot read" in result.output and "test.tsv" in result.output
    assert not (beir.parent / "cache").exists()


def test_unknown_embedder_is_a_clear_error(beir: Path) -> None:
    result = run_eval(beir, "--embedder", "bert")
    assert result.exit_code == 1
    assert "unknown embedder 'bert'" in result.output


@pytest.mark.parametrize("metrics", [["ndcg"], ["ndcg@x"], ["recall@0"], []])
def test_malformed_metric_names_are_config_errors(beir: Path, metrics: list[str]) -> None:
    with pytest.raises(ConfigError, match="metric"):
        evaluate_retrieval(beir, embedder=None, cache_root=beir.parent / "cache", metrics=metrics)
