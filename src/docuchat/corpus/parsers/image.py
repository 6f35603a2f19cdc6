"""Pictures of text (PNG, JPEG, TIFF) read by OCR, each frame of a TIFF a page.

Pillow reads the header first, so the size is checked before any pixel is
decoded; an image is turned upright by its EXIF orientation, as viewers show it,
and word boxes are fractions of that upright picture.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable, Iterator

from PIL import Image, ImageOps, ImageSequence, UnidentifiedImageError

from docuchat.corpus.ocr import get_engine, paragraphs
from docuchat.corpus.parsers._document import DocumentBuilder
from docuchat.corpus.parsers._layout import Lines, paragraph
from docuchat.corpus.parsers.pdf import MAX_OCR_PIXELS, ocr_words
from docuchat.corpus.types import ParsedDocument
from docuchat.errors import CorruptDocument, ParseLimitExceeded, UnsupportedFileType

MEDIA_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "TIFF": "image/tiff"}
MAX_FRAMES = 500
MIN_SIDE = 16  # pixels: smaller pictures (icons) hold no text to read


def parse(
    data: bytes, stem: str, progress: Callable[[int, int], None] | None = None
) -> ParsedDocument:
    builder = DocumentBuilder()
    media_type = "image"
    pages = 0
    with open_image(data) as image:
        media_type = MEDIA_TYPES[str(image.format)]
        count = getattr(image, "n_frames", 1)
        if count > MAX_FRAMES:
            raise ParseLimitExceeded(f"the image has {count:,} frames (limit {MAX_FRAMES})")
        for pages, frame in enumerate(frames(image), start=1):
            if min(frame.size) >= MIN_SIDE:
                for group in paragraphs(get_engine().read(frame)):
                    text, pieces = paragraph(Lines.of([ocr_words(line.words) for line in group]))
                    builder.add(text, pages, pieces=pieces)
            if progress:
                progress(pages, count)
    return builder.build(
        title=stem,
        page_count=max(pages, 1),
        media_type=media_type,
        metadata={"ocr_pages": pages},
        empty_reason="OCR found no text in the image",
    )


def open_image(data: bytes) -> Image.Image:
    """The image, its size checked against the pixel limit before decoding."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ParseLimitExceeded(f"the image has too many pixels ({exc})") from exc
    except UnidentifiedImageError as exc:
        raise UnsupportedFileType("the content is not a PNG, JPEG or TIFF image") from exc
    if image.format not in MEDIA_TYPES:
        raise UnsupportedFileType(f"the content is a {image.format} image, not PNG, JPEG or TIFF")
    return image


def frames(image: Image.Image) -> Iterator[Image.Image]:
    """Each frame upright and in grey, its pixels checked against the limit first."""
    try:
        for frame in ImageSequence.Iterator(image):
            if frame.width * frame.height > MAX_OCR_PIXELS:
                raise ParseLimitExceeded(
                    f"a frame has {frame.width}x{frame.height} pixels (limit {MAX_OCR_PIXELS:,})"
                )
            yield ImageOps.exif_transpose(frame).convert("L")
    except (OSError, SyntaxError, ValueError) as exc:  # Pillow's truncated or damaged data
        raise CorruptDocument(f"the image is damaged ({exc})") from exc
