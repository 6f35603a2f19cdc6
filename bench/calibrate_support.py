"""Calibrate ``citations.SUPPORT_THRESHOLD``: ``python bench/calibrate_support.py [--json]``.

A citation is verified when ``support(claim, passage)``, the share of the
claim's content terms found in the passage, reaches the threshold. This
measures that score on SQuAD 2.0 (by default the three dev articles in
``shared/data``). For every answerable question, two kinds of claim:

- ``sentence``: the paragraph's sentence that holds the gold answer, verbatim
  (what an extractive model quotes);
- ``reworded``: the question followed by its gold answer, a stand-in for a
  language model's claim in its own words (the question's wording, the
  answer's words).

Each claim is scored against its own paragraph (a citation that should be
verified) and against every other paragraph of the same article: hard
negatives, on the same topic with the same names (citations that should not
be). Reported: percentiles of both, then for each threshold the share of
positives verified, the share of negatives verified (false verification) and
their balanced accuracy; the threshold with the best balanced accuracy, and
the lowest one whose false-verification rate is at most 5 %.

Then contradicted claims against their own paragraph, which must not be
verified although they share nearly every word with it: the answer sentence
with its negation turned (``not`` added after the first auxiliary verb, or
taken away), and with its first number changed (one added to it).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from docuchat.evals.qa import load_squad
from docuchat.research.citations import SUPPORT_THRESHOLD, support
from docuchat.research.text import sentence_spans

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "squad2_dev_3articles.json"
THRESHOLDS = [round(t, 2) for t in np.arange(0.3, 1.0001, 0.05)]
PERCENTILES = (5, 10, 25, 50, 75, 90, 95)
MAX_FALSE_VERIFICATION = 0.05

_AUXILIARY = re.compile(
    r"\b(is|are|was|were|has|have|had|can|could|will|would|should|may|might|must|did|does|do)\b"
)
_NEGATION = re.compile(r"\s+(?:not|never)\b|n't\b")
_NUMBER = re.compile(r"\d+")


def answer_sentence(paragraph: str, answer: str) -> str | None:
    """The sentence of ``paragraph`` that contains ``answer`` (None if it spans two)."""
    for start, end in sentence_spans(paragraph):
        if answer in paragraph[start:end]:
            return paragraph[start:end]
    return None


def negation_turned(sentence: str) -> str | None:
    """The sentence saying the opposite: its negation taken away, else "not" added after the
    first auxiliary verb (None when it has neither)."""
    if _NEGATION.search(sentence):
        return _NEGATION.sub("", sentence, count=1)
    if _AUXILIARY.search(sentence):
        return _AUXILIARY.sub(r"\1 not", sentence, count=1)
    return None


def number_changed(sentence: str) -> str | None:
    """The sentence with its first number one larger (None when it has no number)."""
    found = _NUMBER.search(sentence)
    if found is None:
        return None
    return sentence[: found.start()] + str(int(found.group()) + 1) + sentence[found.end() :]


def contradicted_scores(squad: Path) -> dict[str, list[float]]:
    """Support of the answer sentences, negation turned or number changed, by their own
    paragraph."""
    dataset = load_squad(squad)
    found: dict[str, list[float]] = {"negation_turned": [], "number_changed": []}
    for question in dataset.questions:
        if not question.answerable:
            continue
        own = dataset.articles[question.article].paragraphs[question.paragraph]
        sentence = answer_sentence(own, question.answers[0])
        if sentence is None:
            continue
        for kind, change in (
            ("negation_turned", negation_turned),
            ("number_changed", number_changed),
        ):
            changed = change(sentence)
            if changed is not None:
                found[kind].append(support(changed, own))
    return found


def scores(squad: Path) -> dict[str, dict[str, list[float]]]:
    """Per kind of claim: support against the own paragraph, against the others, and the
    best of the others per claim (the hardest negative)."""
    dataset = load_squad(squad)
    found: dict[str, dict[str, list[float]]] = {
        kind: {"own": [], "other": [], "hardest_other": []} for kind in ("sentence", "reworded")
    }
    for question in dataset.questions:
        if not question.answerable:
            continue
        paragraphs = dataset.articles[question.article].paragraphs
        own = paragraphs[question.paragraph]
        others = [p for i, p in enumerate(paragraphs) if i != question.paragraph]
        claims = {
            "sentence": answer_sentence(own, question.answers[0]),
            "reworded": f"{question.text} {question.answers[0]}",
        }
        for kind, claim in claims.items():
            if claim is None:
                continue
            against_others = [support(claim, p) for p in others]
            found[kind]["own"].append(support(claim, own))
            found[kind]["other"] += against_others
            found[kind]["hardest_other"].append(max(against_others, default=0.0))
    return found


def sweep(own: list[float], other: list[float]) -> list[dict[str, float]]:
    positives, negatives = np.array(own), np.array(other)
    rows = []
    for threshold in THRESHOLDS:
        verified = float((positives >= threshold).mean())
        false = float((negatives >= threshold).mean())
        rows.append(
            {
                "threshold": threshold,
                "verified": round(verified, 4),
                "false_verification": round(false, 4),
                "balanced_accuracy": round((verified + 1 - false) / 2, 4),
            }
        )
    return rows


def summary(
    found: dict[str, dict[str, list[float]]], contradicted: dict[str, list[float]]
) -> dict[str, Any]:
    report: dict[str, Any] = {"current_threshold": SUPPORT_THRESHOLD}
    report["contradicted"] = {
        kind: {
            "claims": len(values),
            "verified_at_current_threshold": round(
                float((np.array(values) >= SUPPORT_THRESHOLD).mean()), 4
            ),
        }
        for kind, values in contradicted.items()
    }
    for kind, values in found.items():
        rows = sweep(values["own"], values["other"])
        hardest = sweep(values["own"], values["hardest_other"])
        safe = [r for r in rows if r["false_verification"] <= MAX_FALSE_VERIFICATION]
        report[kind] = {
            "claims": len(values["own"]),
            "negatives": len(values["other"]),
            "percentiles": {
                name: dict(
                    zip(
                        map(str, PERCENTILES),
                        np.percentile(v, PERCENTILES).round(3).tolist(),
                        strict=True,
                    )
                )
                for name, v in values.items()
            },
            "best_balanced_accuracy": max(rows, key=lambda r: r["balanced_accuracy"]),
            "lowest_with_false_verification_at_most_5pct": safe[0] if safe else None,
            "sweep": rows,
            "sweep_against_hardest_negative": hardest,
        }
    return report


def print_report(report: dict[str, Any]) -> None:
    print(f"current SUPPORT_THRESHOLD = {report['current_threshold']}")
    for kind, part in report["contradicted"].items():
        print(
            f"{kind}: {part['claims']} claims against their own paragraph, "
            f"verified {part['verified_at_current_threshold']:.3f} (should be 0)"
        )
    for kind in ("sentence", "reworded"):
        part = report[kind]
        print(
            f"\n{kind} claims: {part['claims']}, negatives (other paragraphs): {part['negatives']}"
        )
        print("  percentiles " + " ".join(f"p{p:>2}" for p in PERCENTILES))
        for name, values in part["percentiles"].items():
            print(f"  {name:>13} " + " ".join(f"{v:.2f}" for v in values.values()))
        print("  threshold  verified  false-verif.  balanced  | vs hardest: false-verif.  balanced")
        for row, hard in zip(part["sweep"], part["sweep_against_hardest_negative"], strict=True):
            print(
                f"  {row['threshold']:9.2f}  {row['verified']:8.3f}"
                f"  {row['false_verification']:12.3f}  {row['balanced_accuracy']:8.3f}"
                f"  |  {hard['false_verification']:23.3f}  {hard['balanced_accuracy']:8.3f}"
            )
        best = part["best_balanced_accuracy"]
        safe = part["lowest_with_false_verification_at_most_5pct"]
        print(f"  best balanced accuracy at {best['threshold']}: {best['balanced_accuracy']:.3f}")
        if safe:
            print(
                f"  lowest threshold with false verification <= 5%: {safe['threshold']}"
                f" (verifies {safe['verified']:.3f})"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--squad", type=Path, default=DATA, help="a SQuAD 2.0 JSON file")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args()
    report = summary(scores(args.squad), contradicted_scores(args.squad))
    if args.json:
        print(json.dumps(report))
    else:
        print_report(report)


if __name__ == "__main__":
    main()
