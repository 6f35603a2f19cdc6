"""RapidOCR: PaddleOCR's PP-OCRv4 detection and recognition models on ONNX Runtime.

The models ship inside the ``rapidocr-onnxruntime`` wheel. It finds text lines
and each character's box; words are the runs of characters between spaces. Lines
come top to bottom (two columns are interleaved line by line).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from PIL import Image

from docuchat.corpus.ocr.base import Box, OcrLine, OcrWord
from docuchat.errors import ConfigError


class RapidOcrEngine:
    name = "rapidocr"

    def __init__(self) -> None:
        try:
            from rapidocr_onnxruntime import RapidOCR
        except ImportError as exc:
            raise ConfigError("this OCR engine needs: pip install rapidocr-onnxruntime") from exc
        self._engine = RapidOCR()
        self._lock = threading.Lock()  # one inference at a time: its sessions use every core

    def read(self, image: Image.Image) -> list[OcrLine]:
        pixels = np.asarray(image.convert("RGB"))
        with self._lock:
            result, _ = self._engine(pixels, return_word_box=True)
        width, height = image.size
        return [line for found in result or [] if (line := _line(found, width, height)) is not None]


def _line(found: list[Any], width: int, height: int) -> OcrLine | None:
    """A line from RapidOCR's ``[quad, text, score, char quads, chars, char scores]``."""
    words: list[OcrWord] = []
    text: list[str] = []
    boxes: list[Box] = []
    char_boxes, chars = (found[3], found[4]) if len(found) > 4 else ([found[0]], [found[1]])
    if len(char_boxes) != len(chars):  # no box per character: the whole line is one piece
        char_boxes, chars = [found[0]], [found[1]]
    for quad, char in [*zip(char_boxes, chars, strict=True), (None, " ")]:
        if char.isspace() or quad is None:
            if text:
                words.append(OcrWord("".join(text), _union(boxes)))
            text, boxes = [], []
            continue
        points = np.asarray(quad, dtype=np.float64)
        text.append(char)
        boxes.append(
            (
                points[:, 0].min() / width,
                points[:, 1].min() / height,
                points[:, 0].max() / width,
                points[:, 1].max() / height,
            )
        )
    return OcrLine(tuple(words)) if words else None


def _union(boxes: list[Box]) -> Box:
    return (
        float(min(b[0] for b in boxes)),
        float(min(b[1] for b in boxes)),
        float(max(b[2] for b in boxes)),
        float(max(b[3] for b in boxes)),
    )
