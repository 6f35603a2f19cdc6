"""BEIR-format collections and the ranking metrics reported on them.

A BEIR folder holds ``corpus.jsonl`` (``_id``, ``title``, ``text``),
``queries.jsonl`` (``_id``, ``text``) and ``qrels/<split>.tsv`` (a header line,
then ``query-id  corpus-id  score``). Metrics follow ``trec_eval`` as BEIR
reports them: linear gains for nDCG, only qrels with a score above zero count
as relevant, and every query with a relevant document counts, also when the
run found nothing for it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docuchat.errors import ConfigError

Ranking = Sequence[str]
Qrels = Mapping[str, Mapping[str, int]]

DEFAULT_METRICS = ("ndcg@10", "recall@10", "recall@100", "mrr@10")


@dataclass(frozen=True, slots=True)
class BeirDocument:
    id: str
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class BeirDataset:
    corpus: dict[str, BeirDocument]
    queries: dict[str, str]  # only the queries that have relevance judgements
    qrels: dict[str, dict[str, int]]


def load_beir(directory: str | Path, *, split: str = "test") -> BeirDataset:
    """Read a BEIR folder; a missing file or a malformed line raises ConfigError."""
    root = Path(directory)
    qrels = _read_qrels(root / "qrels" / f"{split}.tsv")
    corpus = {
        str(row["_id"]): BeirDocument(
            str(row["_id"]), str(row.get("title") or ""), str(row["text"])
        )
        for row in _read_jsonl(root / "corpus.jsonl", required=("_id", "text"))
    }
    queries = {
        str(row["_id"]): str(row["text"])
        for row in _read_jsonl(root / "queries.jsonl", required=("_id", "text"))
        if str(row["_id"]) in qrels
    }
    return BeirDataset(corpus=corpus, queries=queries, qrels=qrels)


def ndcg_at_k(ranking: Ranking, relevant: Mapping[str, int], k: int) -> float:
    gains = sorted((g for g in relevant.values() if g > 0), reverse=True)[:k]
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    if ideal == 0:
        return 0.0
    found = sum(
        max(relevant.get(doc, 0), 0) / math.log2(i + 2) for i, doc in enumerate(ranking[:k])
    )
    return found / ideal


def recall_at_k(ranking: Ranking, relevant: Mapping[str, int], k: int) -> float:
    wanted = {doc for doc, g in relevant.items() if g > 0}
    return len(wanted.intersection(ranking[:k])) / len(wanted) if wanted else 0.0


def mrr_at_k(ranking: Ranking, relevant: Mapping[str, int], k: int) -> float:
    for i, doc in enumerate(ranking[:k]):
        if relevant.get(doc, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


_METRICS = {"ndcg": ndcg_at_k, "recall": recall_at_k, "mrr": mrr_at_k}
_METRIC_NAME = re.compile(r"(ndcg|recall|mrr)@([1-9][0-9]*)")


def evaluate(
    run: Mapping[str, Ranking], qrels: Qrels, metrics: Sequence[str] = DEFAULT_METRICS
) -> dict[str, float]:
    """Mean of each metric (``"ndcg@10"``, ``"recall@100"``, ...) over the judged queries.

    ``run`` maps a query id to document ids, best first; repeated ids (several
    chunks of one document) count once, at their best rank.
    """
    parsed = [_parse_metric(name) for name in metrics]
    judged = [qid for qid, rel in qrels.items() if any(g > 0 for g in rel.values())]
    if not judged:
        raise ConfigError("the qrels judge no document relevant")
    totals = dict.fromkeys(metrics, 0.0)
    for qid in judged:
        ranking = list(dict.fromkeys(run.get(qid, ())))
        for name, (metric, k) in zip(metrics, parsed, strict=True):
            totals[name] += _METRICS[metric](ranking, qrels[qid], k)
    return {name: total / len(judged) for name, total in totals.items()}


def _parse_metric(name: str) -> tuple[str, int]:
    match = _METRIC_NAME.fullmatch(name)
    if not match:
        raise ConfigError(f"unknown metric {name!r}: use ndcg@K, recall@K or mrr@K")
    return match.group(1), int(match.group(2))


def _read_jsonl(path: Path, *, required: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    try:
        with path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ConfigError(f"{path}:{number}: not JSON ({exc.msg})") from None
                if not isinstance(row, dict) or any(key not in row for key in required):
                    raise ConfigError(f"{path}:{number}: expected an object with {required}")
                yield row
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None


def _read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    for number, line in enumerate(lines, 1):
        fields = line.split("\t") if "\t" in line else line.split()
        if not fields or (number == 1 and fields[0] == "query-id"):
            continue
        try:
            qid, doc, score = fields[0], fields[1], int(fields[2])
        except (IndexError, ValueError):
            raise ConfigError(f"{path}:{number}: expected 'query-id corpus-id score'") from None
        qrels.setdefault(qid, {})[doc] = score
    return qrels


__all__ = [
    "DEFAULT_METRICS",
    "BeirDataset",
    "BeirDocument",
    "evaluate",
    "load_beir",
    "mrr_at_k",
    "ndcg_at_k",
    "recall_at_k",
]
