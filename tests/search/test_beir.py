"""BEIR loading and the ranking metrics, against hand-computed values."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from docuchat.errors import ConfigError
from docuchat.evals.beir import evaluate, load_beir, mrr_at_k, ndcg_at_k, recall_at_k


def _write_beir(root: Path) -> Path:
    (root / "qrels").mkdir(parents=True)
    corpus = [{"_id": "d1", "title": "One", "text": "first"}, {"_id": "d2", "text": "second"}]
    (root / "corpus.jsonl").write_text("\n".join(json.dumps(row) for row in corpus) + "\n\n")
    queries = [{"_id": "q1", "text": "find one"}, {"_id": "q9", "text": "unjudged"}]
    (root / "queries.jsonl").write_text("\n".join(json.dumps(row) for row in queries))
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0\n")
    return root


def test_load_keeps_titles_and_only_judged_queries(tmp_path: Path) -> None:
    data = load_beir(_write_beir(tmp_path))
    assert data.corpus["d1"].title == "One" and data.corpus["d2"].title == ""
    assert data.queries == {"q1": "find one"}
    assert data.qrels == {"q1": {"d1": 1, "d2": 0}}


def test_missing_or_malformed_files_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_beir(tmp_path)
    root = _write_beir(tmp_path / "bad")
    (root / "corpus.jsonl").write_text('{"_id": "d1"}\n')
    with pytest.raises(ConfigError, match=r"corpus.jsonl:1: expected an object"):
        load_beir(root)
    with pytest.raises(ConfigError, match="unknown metric"):
        evaluate({}, {"q": {"d": 1}}, ["ndcg@0"])


def test_metrics_match_hand_computed_values() -> None:
    relevant = {"a": 1, "b": 2, "z": 0}
    ranking = ["x", "b", "a", "y"]

    ideal = 2 / math.log2(2) + 1 / math.log2(3)
    assert ndcg_at_k(ranking, relevant, 10) == pytest.approx(
        (2 / math.log2(3) + 1 / math.log2(4)) / ideal
    )
    assert ndcg_at_k(ranking, relevant, 1) == 0.0
    assert recall_at_k(ranking, relevant, 2) == 0.5
    assert recall_at_k(ranking, relevant, 3) == 1.0
    assert mrr_at_k(ranking, relevant, 10) == 0.5
    assert mrr_at_k(ranking, relevant, 1) == 0.0


def test_evaluate_averages_over_judged_queries_and_dedupes_documents() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 0}}
    run = {"q1": ["a", "a", "x"], "q3": ["c"]}  # q2 found nothing; q3 has nothing relevant

    scores = evaluate(run, qrels, ["ndcg@10", "recall@1", "mrr@10"])
    assert scores == {"ndcg@10": 0.5, "recall@1": 0.5, "mrr@10": 0.5}
    assert evaluate({"q1": ["x", "a", "a"]}, {"q1": {"a": 1}}, ["mrr@10"]) == {"mrr@10": 0.5}
