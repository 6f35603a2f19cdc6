"""A page of an original file as a PNG: PDF pages through PDFium, pictures through Pillow.

The picture shows the page as a reader sees it (crop box, rotation; an image
turned upright by its EXIF orientation), so the fractions of ``PageBoxes`` drawn
over it land on the glyphs they locate.
"""

from __future__ import annotations

import io

from PIL import Image, ImageOps

from docuchat.corpus.parsers import image as image_parser
from docuchat.corpus.parsers.pdf import PDFIUM_LOCK, open_pdf
from docuchat.errors import NotFound, UnsupportedFileType

MIN_WIDTH, MAX_WIDTH = 64, 3000
MAX_HEIGHT = 6000  # a very tall page is shown narrower instead
RENDERED_TYPES = frozenset({"application/pdf", *image_parser.MEDIA_TYPES.values()})


def render_page(data: bytes, media_type: str, page: int, width: int) -> bytes:
    """Page ``page`` (1-based) of the file as a PNG ``width`` pixels wide (clamped)."""
    width = min(max(width, MIN_WIDTH), MAX_WIDTH)
    if media_type == "application/pdf":
        picture = _pdf_page(data, page, width)
    elif media_type in image_parser.MEDIA_TYPES.values():
        picture = _image_frame(data, page, width)
    else:
        raise UnsupportedFileType(f"{media_type} documents have no pages to show")
    out = io.BytesIO()
    picture.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()


def _pdf_page(data: bytes, page: int, width: int) -> Image.Image:
    with PDFIUM_LOCK:
        document = open_pdf(data)
        try:
            if not 1 <= page <= len(document):
                raise NotFound(f"no page {page}")
            pdf_page = document[page - 1]
            try:
                points_wide, points_high = pdf_page.get_size()
                if pdf_page.get_rotation() % 180:
                    points_wide, points_high = points_high, points_wide
                scale = min(width / points_wide, MAX_HEIGHT / points_high)
                picture: Image.Image = pdf_page.render(scale=scale).to_pil()
                return picture
            finally:
                pdf_page.close()
        finally:
            document.close()


def _image_frame(data: bytes, page: int, width: int) -> Image.Image:
    with image_parser.open_image(data) as picture:
        if not 1 <= page <= getattr(picture, "n_frames", 1):
            raise NotFound(f"no page {page}")
        picture.seek(page - 1)
        upright = ImageOps.exif_transpose(picture).convert("RGB")
        scale = min(width / upright.width, MAX_HEIGHT / upright.height)
        size = (max(round(upright.width * scale), 1), max(round(upright.height * scale), 1))
        return upright.resize(size, Image.Resampling.LANCZOS)
