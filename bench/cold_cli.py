"""A cold ``docuchat ask`` with the default settings: ``python bench/cold_cli.py [--runs N]``.

Each run is a fresh process, as a person typing the command gets: ``docuchat
ask QUESTION`` over the bundled sample documents (4 documents, 11 chunks),
ingested first with the default settings into a temporary ``DOCUCHAT_HOME``.
The variants take turns in every round (so a burst of load elsewhere hits
them alike) and the table gives each one's median and fastest wall time, and
its median CPU time (user + system, from the child's rusage), which other
processes' load inflates far less than the wall time:

- ``default``: no options (``auto`` picks the embedder);
- ``--embedder none``: BM25 only, no vectors: the floor of a cold ask;
- ``--embedder minilm-bf16``: what ``auto`` chose before questions were embedded
  by the int8 model (PyTorch imported on every question).

``--src DIR`` runs another checkout's sources (``PYTHONPATH=DIR``), for a
before/after comparison; ``--json`` prints every sample.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "How many days of annual leave do full-time employees get?"
VARIANTS = {
    "default": [],
    "--embedder none": ["--embedder", "none"],
    "--embedder minilm-bf16": ["--embedder", "minilm-bf16"],
}


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command`` (which must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    docuchat = [sys.executable, "-c", "from docuchat.cli.main import main; main()"]
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "DOCUCHAT_HOME": home, "PYTHONPATH": str(args.src)}
        for name in ("DOCUCHAT_EMBEDDER", "DOCUCHAT_MODEL", "DOCUCHAT_DB"):
            env.pop(name, None)
        ingest, _ = timed([*docuchat, "ingest", str(ROOT / "samples" / "documents")], env)
        timed([*docuchat, "ask", QUESTION], env)  # untimed: a first ask may build what it lacks
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in VARIANTS}
        for _ in range(args.runs):
            for name, options in VARIANTS.items():
                samples[name].append(timed([*docuchat, "ask", QUESTION, *options], env))
    if args.json:
        print(json.dumps({"ingest_s": ingest, "samples": samples}))
        return
    floor = statistics.median(wall for wall, _ in samples["--embedder none"])
    print(f"ingest (default settings, first run): {ingest:.1f} s; {args.runs} runs each\n")
    print("| `docuchat ask` | median wall s | fastest wall s | median CPU s | × none |")
    print("|---|---:|---:|---:|---:|")
    for name, runs in samples.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        median = statistics.median(walls)
        print(
            f"| {name} | {median:.2f} | {min(walls):.2f} | {statistics.median(cpus):.2f}"
            f" | {median / floor:.1f} |"
        )


if __name__ == "__main__":
    main()
