"""The business dev set in two halves, and its eval's figures per half.

``python bench/business_halves.py REPORT.json`` reads the output of
``docuchat eval qa --set evals/business/dev --json`` and prints the figures of each half.

The halves (decided before any change to the model): four documents are the *work* half's,
four the *measure* half's. An answerable question belongs to the work half when each of its
gold parts has evidence in a work document, else to the measure half; an unanswerable one by
its number (odd: work, even: measure). The offline model was debugged question by question
on the work half only; the measure half was only measured.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docuchat.evals.business_set import KINDS, SetQuestion, load_set

DEV = Path(__file__).resolve().parent.parent / "evals" / "business" / "dev"
WORK_DOCUMENTS = frozenset(
    {
        "acme-hosting-contract-summary.md",
        "brightline-subscription-agreement.docx",
        "incident-review-INC-2025-0314.txt",
        "travel-and-expenses-policy.md",
    }
)
HALVES = ("work", "measure")


def half_of(question: SetQuestion) -> str:
    if not question.answerable:
        return "work" if int(question.id.rsplit("-", 1)[1]) % 2 else "measure"
    in_work = all(any(e.document in WORK_DOCUMENTS for e in p.evidence) for p in question.parts)
    return "work" if in_work else "measure"


def figures(questions: Sequence[SetQuestion], outcome: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per kind: right (declined for unanswerable ones); overall: right, wrong answers
    presented as answers (of all, of those answered)."""
    result: dict[str, Any] = {}
    for kind in KINDS:
        mine = [outcome[q.id] for q in questions if q.kind == kind]
        key = "declined" if kind == "unanswerable" else "right"
        value = "abstained" if kind == "unanswerable" else "right"
        result[kind] = {"n": len(mine), key: _mean(o[value] for o in mine)}
    every = [outcome[q.id] for q in questions]
    answered = [o for o in every if not o["abstained"]]
    result["overall"] = {
        "n": len(every),
        "right": _mean(o["right"] for o in every),
        "wrong_of_all": _mean(not o["right"] and not o["abstained"] for o in every),
        "wrong_of_answered": _mean(not o["right"] for o in answered),
    }
    return result


def _mean(values: Any) -> float:
    items = [float(v) for v in values]
    return round(sum(items) / len(items), 3) if items else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", type=Path, help="docuchat eval qa --set ... --json output")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    report = json.loads(args.report.read_text())
    outcome = {q["id"]: q for q in report["questions"]}
    questions = [q for q in load_set(DEV).questions if q.id in outcome]
    halves = {h: figures([q for q in questions if half_of(q) == h], outcome) for h in HALVES}
    halves["all"] = figures(questions, outcome)
    if args.json:
        print(json.dumps(halves))
        return
    rows = [*KINDS, "overall"]
    print(f"{'':14}" + "".join(f"{h:>22}" for h in halves))
    for row in rows:
        cells = []
        for h in halves:
            f = halves[h][row]
            value = f.get("right", f.get("declined"))
            extra = f" wrong {f['wrong_of_all']:.3f}" if row == "overall" else ""
            cells.append(f"{value:.3f} (n={f['n']}){extra}")
        print(f"{row:14}" + "".join(f"{c:>22}" for c in cells))


if __name__ == "__main__":
    main()
