"""What ``--model auto`` costs when no model server runs: the search itself, and a cold CLI.

    .venv/bin/python bench/auto_model.py [--runs 7]

1. ``choose_model()`` in-process, with OPENAI_BASE_URL unset: four default local addresses
   tried (median of 200 calls).
2. ``docuchat ask --json`` in a fresh process over samples/documents (``--embedder none``),
   ``--model auto`` against ``--model offline``, alternated, median of ``--runs`` each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from docuchat.models.auto import LOCAL_SERVERS, choose_model

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "How many days of annual leave do full-time employees get?"


def _search_ms(calls: int = 200) -> tuple[float, str]:
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        choice = choose_model({})
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), choice.why


def _cli_seconds(home: str, model: str) -> float:
    environ = {k: v for k, v in os.environ.items() if k != "OPENAI_BASE_URL"}
    environ["DOCUCHAT_HOME"] = home
    command = [str(Path(sys.executable).parent / "docuchat"), "ask", QUESTION]
    command += ["--embedder", "none", "--json", "--model", model]
    started = time.perf_counter()
    subprocess.run(command, env=environ, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    search, why = _search_ms()
    print(f"choose_model(), {len(LOCAL_SERVERS)} local addresses: median {search:.2f} ms ({why})")
    with tempfile.TemporaryDirectory() as home:
        ingest = [str(Path(sys.executable).parent / "docuchat"), "ingest"]
        ingest += [str(ROOT / "samples" / "documents"), "--embedder", "none"]
        subprocess.run(ingest, env={**os.environ, "DOCUCHAT_HOME": home}, check=True)
        timings: dict[str, list[float]] = {"offline": [], "auto": []}
        for _ in range(args.runs):
            for model in timings:
                timings[model].append(_cli_seconds(home, model))
    for model, seconds in timings.items():
        spread = f"{min(seconds):.2f}-{max(seconds):.2f}"
        print(f"docuchat ask --model {model}: median {statistics.median(seconds):.2f} s ({spread})")


if __name__ == "__main__":
    main()
