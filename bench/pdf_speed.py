"""PDF parsing speed of this tree against other revisions, in alternating runs.

``python bench/pdf_speed.py [--against main] [--rounds 7] [--repeat 5] [--json]``

Each revision's ``src`` (``git archive``) and this tree's are timed in turn, in fresh
processes, round after round (the order flips each round), so that the load other work
puts on the machine falls on all of them alike. A run is ``parse_bytes`` in process,
best of ``--repeat``, over each set of PDFs:

- real PDFs: the text PDFs of tests/corpus/fixtures/real-pdfs (those that parse
  without OCR; the image-only ones would time Tesseract);
- project PDFs: the sample and evaluation PDFs of this repository (ReportLab);
- long document: the real PDFs' pages appended ten times over (by PDFium), where
  opening files costs next to nothing.

Reported per set and revision, of wall time and of the worker's CPU time (which other
processes disturb less): the median and the best pages/s over the rounds, and the
median over rounds of this tree's speed divided by the revision's (the speed-up).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETS = {
    "real PDFs": sorted((ROOT / "tests" / "corpus" / "fixtures" / "real-pdfs").glob("*.pdf")),
    "project PDFs": sorted(
        [*ROOT.glob("samples/documents/*.pdf"), *ROOT.glob("evals/business/*/documents/*.pdf")]
    ),
}
LONG = "long document"
LONG_COPIES = 10
THIS_TREE = "this tree"
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def _text_pdfs(paths: list[Path]) -> list[Path]:
    """The PDFs that parse without OCR (the image-only ones are refused or read by OCR)."""
    from docuchat.corpus.parse import parse_bytes  # this tree's: PYTHONPATH=src
    from docuchat.errors import IngestError

    kept = []
    for path in paths:
        try:
            doc = parse_bytes(path.read_bytes(), path.name)
        except IngestError:
            continue
        if "ocr_pages" not in doc.metadata:
            kept.append(path)
    return kept


def _long_document(paths: list[Path]) -> bytes:
    import pypdfium2 as pdfium

    long = pdfium.PdfDocument.new()
    for _ in range(LONG_COPIES):
        for path in paths:
            long.import_pages(pdfium.PdfDocument(path))
    out = io.BytesIO()
    long.save(out)
    return out.getvalue()


def _worker(sets: dict[str, list[str]], repeat: int) -> dict[str, dict[str, float]]:
    """Pages per second per set and clock, best of ``repeat``, with the ``docuchat`` on
    the path: of wall time, and of the process's CPU time (less disturbed by others)."""
    from docuchat.corpus.parse import parse_bytes

    rates = {}
    for name, paths in sets.items():
        files = [(Path(p).name, Path(p).read_bytes()) for p in paths]
        pages = sum(parse_bytes(data, n).page_count for n, data in files)  # and warms up
        best = {clock: float("inf") for clock in CLOCKS}
        for _ in range(repeat):
            started = {clock: read() for clock, read in CLOCKS.items()}
            for n, data in files:
                parse_bytes(data, n)
            for clock, read in CLOCKS.items():
                best[clock] = min(best[clock], read() - started[clock])
        rates[name] = {clock: pages / seconds for clock, seconds in best.items()}
    return rates


def _export(revision: str, into: Path) -> Path:
    """The revision's ``src`` folder, written under ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "src"], check=True, capture_output=True
    ).stdout
    target = into / revision.replace("/", "_")
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    return target / "src"


def _run(src: Path, sets: dict[str, list[str]], repeat: int) -> dict[str, dict[str, float]]:
    env = dict(os.environ, PYTHONPATH=str(src))
    out = subprocess.run(
        [sys.executable, __file__, "--worker", json.dumps(sets), "--repeat", str(repeat)],
        check=True, capture_output=True, text=True, env=env,
    ).stdout  # fmt: skip
    rates: dict[str, dict[str, float]] = json.loads(out)
    return rates


def measure(against: list[str], rounds: int, repeat: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as folder:
        sets = {name: [str(p) for p in _text_pdfs(paths)] for name, paths in SETS.items()}
        long_pdf = Path(folder) / "long.pdf"
        long_pdf.write_bytes(_long_document([Path(p) for p in sets["real PDFs"]]))
        sets[LONG] = [str(long_pdf)]
        trees = {THIS_TREE: ROOT / "src"} | {rev: _export(rev, Path(folder)) for rev in against}
        runs: dict[str, list[dict[str, dict[str, float]]]] = {name: [] for name in trees}
        for round_ in range(rounds):
            order = list(trees) if round_ % 2 == 0 else list(reversed(trees))
            for name in order:
                runs[name].append(_run(trees[name], sets, repeat))
    summary: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
    for set_name in sets:
        summary[set_name] = {}
        for name, tree_runs in runs.items():
            summary[set_name][name] = {}
            for clock in CLOCKS:
                rates = [run[set_name][clock] for run in tree_runs]
                ours = [run[set_name][clock] for run in runs[THIS_TREE]]
                summary[set_name][name][clock] = {
                    "median_pages_per_s": statistics.median(rates),
                    "best_pages_per_s": max(rates),
                    "this_tree_speedup": statistics.median(
                        mine / theirs for mine, theirs in zip(ours, rates, strict=True)
                    ),
                }
    files = {name: len(paths) for name, paths in sets.items()}
    return {"rounds": rounds, "repeat": repeat, "files": files, "sets": summary}


def _table(result: dict[str, object]) -> str:
    """Per set and tree, for each clock: median pages/s (best) and this tree's speed-up."""
    lines = [
        "| set | tree | pages/s, wall: median (best) | speed-up, wall "
        "| pages/s, CPU: median (best) | speed-up, CPU |",
        "|---|---|---:|---:|---:|---:|",
    ]
    sets = result["sets"]
    assert isinstance(sets, dict)
    for set_name, trees in sets.items():
        for tree, clocks in trees.items():
            cells = [
                f"{f['median_pages_per_s']:,.0f} ({f['best_pages_per_s']:,.0f}) "
                f"| {f['this_tree_speedup']:.2f}"
                for f in (clocks[clock] for clock in CLOCKS)
            ]
            lines.append(f"| {set_name} | {tree} | {' | '.join(cells)} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", action="append", default=[], help="a git revision")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per process")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(_worker(json.loads(args.worker), args.repeat)))
        return
    result = measure(args.against or ["main"], args.rounds, args.repeat)
    print(json.dumps(result, indent=2) if args.json else _table(result))


if __name__ == "__main__":
    main()
