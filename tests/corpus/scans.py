"""Scan-like pictures of real PDF pages, with the text they show (their text layer).

Shared by the OCR tests and ``bench/ocr_engines.py``: a page rendered at scanner
resolution in grey, turned by a small angle as a sheet fed slightly askew, blurred
a little, speckled with noise and saved as JPEG, as office scanners do.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
import pypdfium2 as pdfium
from PIL import Image, ImageFilter


@dataclass(frozen=True, slots=True)
class Scan:
    image: Image.Image
    text: str  # the page's text layer, words joined by single spaces
    page_size: tuple[float, float]  # in points


def render(pdf: bytes, index: int, *, dpi: int = 300) -> Scan:
    """Page ``index`` of ``pdf`` as a clean grey image, with its text."""
    document = pdfium.PdfDocument(pdf)
    try:
        page = document[index]
        text_page = page.get_textpage()
        text = " ".join(text_page.get_text_range().replace("\ufffe", "").split())
        image = page.render(scale=dpi / 72, grayscale=True).to_pil().convert("L")
        return Scan(image, text, page.get_size())
    finally:
        document.close()


def degrade(
    image: Image.Image, *, angle: float = 0.8, noise: float = 12.0, seed: int = 0
) -> Image.Image:
    """The image as a scanner gives it: askew by ``angle`` degrees, slightly blurred,
    grey noise of standard deviation ``noise``, JPEG quality 75."""
    turned = image.rotate(angle, resample=Image.Resampling.BILINEAR, expand=False, fillcolor=255)
    blurred = turned.filter(ImageFilter.GaussianBlur(0.6))
    pixels = np.asarray(blurred, dtype=np.float32)
    pixels += np.random.default_rng(seed).normal(0.0, noise, pixels.shape)
    noisy = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    jpeg = io.BytesIO()
    noisy.save(jpeg, format="JPEG", quality=75)
    return Image.open(io.BytesIO(jpeg.getvalue()))


def image_pdf(images: list[Image.Image], *, dpi: int = 300) -> bytes:
    """A PDF of pages that are these pictures only (no text layer), as scanners make."""
    out = io.BytesIO()
    first, *rest = [image.convert("L") for image in images]
    first.save(out, format="PDF", save_all=True, append_images=rest, resolution=dpi)
    return out.getvalue()
