"""Text and word boxes from pictures of pages: two engines behind one interface.

``get_engine()`` returns the engine chosen by measurement (``bench/ocr_engines.py``,
README): Tesseract. RapidOCR (ONNX models shipped in its wheel) is the other one
measured and can be chosen with ``DOCUCHAT_OCR=rapidocr``. Nothing is downloaded
at run time: Tesseract's English model comes with Debian's ``tesseract-ocr-eng``.
"""

from __future__ import annotations

import os

from docuchat.config import OCR_VARIABLE
from docuchat.corpus.ocr.base import OcrEngine, OcrLine, OcrWord, paragraphs
from docuchat.corpus.ocr.rapid import RapidOcrEngine
from docuchat.corpus.ocr.tesseract import TesseractEngine
from docuchat.errors import ConfigError

DEFAULT_ENGINE = "tesseract"
ENGINES = {"tesseract": TesseractEngine, "rapidocr": RapidOcrEngine}
_engines: dict[str, OcrEngine] = {}

__all__ = ["ENGINES", "OcrEngine", "OcrLine", "OcrWord", "get_engine", "paragraphs"]


def get_engine(name: str | None = None) -> OcrEngine:
    """The engine named (default: ``DOCUCHAT_OCR``, else Tesseract), built once per process."""
    name = name or os.environ.get(OCR_VARIABLE) or DEFAULT_ENGINE
    if name not in ENGINES:
        raise ConfigError(f"unknown OCR engine {name!r} (known: {', '.join(ENGINES)})")
    engine = _engines.get(name)
    if engine is None:
        engine = _engines[name] = ENGINES[name]()
    return engine
