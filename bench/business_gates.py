"""Several parts of the business set asked in one run, in aggregate only:
``python bench/business_gates.py [PART_OR_GROUP ...] [--embedder none] [--json FILE]``.

A round's decision reads right and wrong answers summed over several parts (the gates, a
pooled judge), and a sealed part may only be read in aggregate: this prints nothing of a
question, only per part and in all the questions right, the wrong answers presented as
answers, and the share right of each kind (unanswerable: declined). Groups: ``open`` (dev,
formats, fresh), ``retired`` (sealed, sealed2, sealed3), ``gates`` (sealed4 to sealed27),
``judge`` (sealed28, sealed29); default: ``gates``. To compare two builds, run it under
each in one session (``PYTHONPATH=other/src``): the figures of docs/readme/offline_eval.md's
fourteenth and fifteenth rounds are such runs, part by part (``docuchat eval qa --set``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from pathlib import Path
from typing import Any

from docuchat.config import Settings
from docuchat.embeddings import get_embedder
from docuchat.evals.business import evaluate_set
from docuchat.evals.business_set import KINDS, load_set
from docuchat.research.offline import OfflineModel

SETS = Path(__file__).resolve().parents[1] / "evals/business"
GROUPS = {
    "open": ("dev", "formats", "fresh"),
    "retired": ("sealed", "sealed2", "sealed3"),
    "gates": tuple(f"sealed{i}" for i in range(4, 28)),
    "judge": ("sealed28", "sealed29"),
}


def parts_of(names: list[str]) -> list[str]:
    return [part for name in names for part in GROUPS.get(name, (name,))]


def aggregate(part: str, embedder_spec: str, cache: Path) -> dict[str, Any]:
    """One part's right and wrong answers and its share right by kind, nothing else."""
    embedder = get_embedder(embedder_spec)
    report = asyncio.run(
        evaluate_set(load_set(SETS / part), OfflineModel(), embedder=embedder, cache_root=cache)
    )
    results = report.results
    found: dict[str, Any] = {
        "n": len(results),
        "right": sum(r.right for r in results),
        "wrong": sum(r.wrong_as_answer for r in results),
    }
    for kind in KINDS:
        of_kind = [r for r in results if r.question.kind == kind]
        found[kind] = [sum(r.right for r in of_kind), len(of_kind)]
    return found


def line(name: str, figures: dict[str, Any]) -> str:
    kinds = "  ".join(f"{kind} {right}/{n}" for kind in KINDS for right, n in [figures[kind]] if n)
    right, n, wrong = figures["right"], figures["n"], figures["wrong"]
    return f"{name:10} right {right:4}/{n:<4} wrong {wrong:3}  {kinds}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("parts", nargs="*", default=["gates"], help="parts or groups")
    parser.add_argument("--embedder", default=None, help="as docuchat eval qa's (default: auto)")
    parser.add_argument("--cache-dir", type=Path, default=Path(".cache/eval"))
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    spec = args.embedder or Settings().embedder
    found: dict[str, dict[str, Any]] = {}
    total: dict[str, Any] = {"n": 0, "right": 0, "wrong": 0, **{kind: [0, 0] for kind in KINDS}}
    for part in parts_of(args.parts):
        figures = found[part] = aggregate(part, spec, args.cache_dir)
        print(line(part, figures), flush=True)
        for key in ("n", "right", "wrong"):
            total[key] += figures[key]
        for kind in KINDS:
            total[kind] = [a + b for a, b in zip(total[kind], figures[kind], strict=True)]
    print(line("in all", total))
    if args.json:
        args.json.write_text(json.dumps({"parts": found, "in_all": total}, indent=1) + "\n")


if __name__ == "__main__":
    main()
