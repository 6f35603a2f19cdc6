"""Tesseract (Debian's ``tesseract-ocr`` with ``tesseract-ocr-eng``), run as a program.

Its TSV output gives every word's box with its block, paragraph and line, in
the reading order of its own layout analysis (columns are read one after the other).
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess

from PIL import Image

from docuchat.corpus.ocr.base import OcrLine, OcrWord
from docuchat.errors import ConfigError, CorruptDocument

_TIMEOUT_S = 120  # per page; a normal page takes 1-3 s here
_MIN_CONFIDENCE = 0.0  # words Tesseract gives up on have confidence -1


class TesseractEngine:
    name = "tesseract"

    def __init__(self, language: str = "eng") -> None:
        self.program = shutil.which("tesseract")
        if self.program is None:
            raise ConfigError(
                "OCR needs Tesseract: apt-get install tesseract-ocr tesseract-ocr-eng"
            )
        self.language = language

    def read(self, image: Image.Image) -> list[OcrLine]:
        png = io.BytesIO()
        image.save(png, format="PNG", compress_level=1)
        # One thread per page: pages are many, cores two, and OpenMP threads only contend.
        environment = {**os.environ, "OMP_THREAD_LIMIT": "1"}
        try:
            done = subprocess.run(
                [str(self.program), "stdin", "stdout", "-l", self.language, "--psm", "3", "tsv"],
                input=png.getvalue(),
                capture_output=True,
                timeout=_TIMEOUT_S,
                env=environment,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise CorruptDocument(f"OCR of one page took more than {_TIMEOUT_S} s") from exc
        if done.returncode != 0:
            message = done.stderr.decode(errors="replace").strip().splitlines()
            raise CorruptDocument(f"OCR failed: {message[-1] if message else done.returncode}")
        return _lines(done.stdout.decode("utf-8", errors="replace"), *image.size)


def _lines(tsv: str, width: int, height: int) -> list[OcrLine]:
    lines: dict[tuple[int, int, int], list[OcrWord]] = {}
    for row in csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE):
        text = (row.get("text") or "").strip()
        if row["level"] != "5" or not text or float(row["conf"]) < _MIN_CONFIDENCE:
            continue
        left, top = int(row["left"]), int(row["top"])
        box = (
            left / width,
            top / height,
            (left + int(row["width"])) / width,
            (top + int(row["height"])) / height,
        )
        key = (int(row["block_num"]), int(row["par_num"]), int(row["line_num"]))
        lines.setdefault(key, []).append(OcrWord(text, box))
    paragraph_numbers: dict[tuple[int, int], int] = {}
    return [
        OcrLine(
            tuple(words),
            paragraph_numbers.setdefault((block, par), len(paragraph_numbers)),
        )
        for (block, par, _), words in lines.items()
    ]
