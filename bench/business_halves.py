"""A part of the business set in two halves, and its eval's figures per half.

``python bench/business_halves.py REPORT.json [--part dev|formats|fresh]`` reads the output of
``docuchat eval qa --set evals/business/<part> --json`` and prints the figures of each half.

The halves of each part (decided before any change to the model): some documents are the
*work* half's, the others the *measure* half's. An answerable question belongs to the work
half when each of its gold parts has evidence in a work document (or a file attached to
one), else to the measure half; an unanswerable one by its number (odd: work, even:
measure). The offline model was debugged question by question on the work halves only; the
measure halves were only measured.

- ``dev``: four documents each (the split the model was built with);
- ``formats``: the XLSX, PPTX and EML documents, one of each per half;
- ``fresh``: four documents each (a new writer's part, split before any model ran on it):
  the DOCX contract, Markdown handbook, XLSX price list and EML invoice query (with its CSV)
  are the work half's; the PDF contract, HTML minutes, text incident report and PPTX deck the
  measure half's.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docuchat.corpus.ingest import ATTACHMENT_MARK
from docuchat.evals.business_set import KINDS, SetQuestion, load_set

SETS = Path(__file__).resolve().parent.parent / "evals" / "business"
WORK_HALVES = {
    "dev": frozenset(
        {
            "acme-hosting-contract-summary.md",
            "brightline-subscription-agreement.docx",
            "incident-review-INC-2025-0314.txt",
            "travel-and-expenses-policy.md",
        }
    ),
    "formats": frozenset(
        {
            "halden-shopfitting-price-schedule-2025.xlsx",
            "digital-steering-committee-deck-2025-07.pptx",
            "kestrel-delivery-rates-agreed.eml",
        }
    ),
    "fresh": frozenset(
        {
            "cobaltline-colocation-agreement.docx",
            "people-handbook-leave-and-remote-work.md",
            "wallaroo-price-list-fy2027.xlsx",
            "yarrabee-invoice-query.eml",
        }
    ),
}
"""Per part, the work half's documents."""
DEV = SETS / "dev"
WORK_DOCUMENTS = WORK_HALVES["dev"]
HALVES = ("work", "measure")


def half_of(question: SetQuestion, work_documents: frozenset[str] = WORK_DOCUMENTS) -> str:
    if not question.answerable:
        return "work" if int(question.id.rsplit("-", 1)[1]) % 2 else "measure"
    in_work = all(
        any(e.document.split(ATTACHMENT_MARK)[0] in work_documents for e in p.evidence)
        for p in question.parts
    )
    return "work" if in_work else "measure"


def figures(questions: Sequence[SetQuestion], outcome: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per kind: right (declined for unanswerable ones); overall: right, wrong answers
    presented as answers (of all, of those answered)."""
    result: dict[str, Any] = {}
    for kind in KINDS:
        mine = [outcome[q.id] for q in questions if q.kind == kind]
        if kind == "unanswerable":
            result[kind] = {"n": len(mine), "declined": _mean(not _presented(o) for o in mine)}
        else:
            result[kind] = {"n": len(mine), "right": _mean(o["right"] for o in mine)}
    every = [outcome[q.id] for q in questions]
    answered = [o for o in every if _presented(o)]
    result["overall"] = {
        "n": len(every),
        "right": _mean(o["right"] for o in every),
        "wrong_of_all": _mean(not o["right"] and _presented(o) for o in every),
        "wrong_of_answered": _mean(not o["right"] for o in answered),
        "related": _mean(o.get("related", False) for o in every),
    }
    return result


def _presented(outcome: dict[str, Any]) -> bool:
    """Shown as an answer: not declined, nor shown as related passages only (a report
    written before ``related`` was recorded has none)."""
    return not outcome["abstained"] and not outcome.get("related", False)


def _mean(values: Any) -> float:
    items = [float(v) for v in values]
    return round(sum(items) / len(items), 3) if items else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", type=Path, help="docuchat eval qa --set ... --json output")
    parser.add_argument("--part", choices=sorted(WORK_HALVES), default="dev", help="the set's part")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    report = json.loads(args.report.read_text())
    outcome = {q["id"]: q for q in report["questions"]}
    work = WORK_HALVES[args.part]
    questions = [q for q in load_set(SETS / args.part).questions if q.id in outcome]
    halves = {h: figures([q for q in questions if half_of(q, work) == h], outcome) for h in HALVES}
    halves["all"] = figures(questions, outcome)
    if args.json:
        print(json.dumps(halves))
        return
    rows = [*KINDS, "overall"]
    print(f"{'':14}" + "".join(f"{h:>28}" for h in halves))
    for row in rows:
        cells = []
        for h in halves:
            f = halves[h][row]
            value = f.get("right", f.get("declined"))
            extra = f" wrong {f['wrong_of_all']:.3f}" if row == "overall" else ""
            cells.append(f"{value:.3f} (n={f['n']}){extra}")
        print(f"{row:14}" + "".join(f"{c:>28}" for c in cells))


if __name__ == "__main__":
    main()
