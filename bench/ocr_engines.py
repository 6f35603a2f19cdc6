"""OCR engines side by side on scans of real pages: ``python bench/ocr_engines.py [--json]``.

The pages are the text pages of the real PDFs in tests/corpus/fixtures/real-pdfs,
rendered at 300 dpi; each is read twice per engine: clean, and as a scanner gives
it (turned 0.8 degrees, blurred, noise, JPEG; ``tests/corpus/scans.py``). The known
text is the page's own text layer. Reported per engine and condition:

- CER: character error rate, the edit distance between the OCR text and the known
  text (both with whitespace collapsed) over the known text's length, pooled over
  pages (reading order counts: a column read line by line across is an error);
- pages/s: pages read per second, one page at a time, engine start-up excluded;
- image-only pages (photos, drawings) where an engine "read" text that is not there.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from PIL import Image
from rapidfuzz.distance import Levenshtein

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.corpus.scans

from tests.corpus.scans import degrade, render

from docuchat.corpus.ocr import ENGINES, get_engine

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "fixtures" / "real-pdfs"
TEXT_PAGES = {
    "pdflatex-4-pages.pdf": range(4),
    "multicolumn.pdf": range(2),
    "google-doc-document.pdf": range(1),
    "002-trivial-libre-office-writer.pdf": range(1),
    "crazyones-pdfa.pdf": range(1),
    "minimal-document.pdf": range(1),
    "mistitled_outlines_example.pdf": range(1, 3),
}
IMAGE_PAGES = ["cmyk-image.pdf", "grayscale-image.pdf"]


def _pages(dpi: int) -> list[tuple[str, Image.Image, Image.Image, str]]:
    pages = []
    for name, indexes in TEXT_PAGES.items():
        data = (FIXTURES / name).read_bytes()
        for index in indexes:
            scan = render(data, index, dpi=dpi)
            pages.append(
                (f"{name}#{index + 1}", scan.image, degrade(scan.image, seed=index), scan.text)
            )
    return pages


def _read(engine_name: str, image: Image.Image) -> str:
    lines = get_engine(engine_name).read(image)
    return " ".join(word.text for line in lines for word in line.words)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dpi", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    pages = _pages(args.dpi)
    results = []
    for engine in ENGINES:
        get_engine(engine)  # load models outside the timing
        for condition in ("clean", "scanned"):
            errors = chars = 0
            start = time.perf_counter()
            for _, clean, scanned, text in pages:
                found = _read(engine, clean if condition == "clean" else scanned)
                errors += Levenshtein.distance(" ".join(found.split()), text)
                chars += len(text)
            seconds = time.perf_counter() - start
            results.append(
                {
                    "engine": engine,
                    "condition": condition,
                    "pages": len(pages),
                    "cer": round(errors / chars, 4),
                    "pages_per_s": round(len(pages) / seconds, 3),
                }
            )
        phantom = 0
        for name in IMAGE_PAGES:
            image = render((FIXTURES / name).read_bytes(), 0, dpi=args.dpi).image
            phantom += len(_read(engine, image).split())
        results[-1]["words_on_image_only_pages"] = phantom
        results[-2]["words_on_image_only_pages"] = phantom
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{len(pages)} pages at {args.dpi} dpi\n")
    print("| engine | condition | CER | pages/s | words read on 2 image-only pages |")
    print("|---|---|---|---|---|")
    for row in results:
        print(
            f"| {row['engine']} | {row['condition']} | {row['cer']:.2%} | {row['pages_per_s']:.2f}"
            f" | {row['words_on_image_only_pages']} |"
        )


if __name__ == "__main__":
    main()
