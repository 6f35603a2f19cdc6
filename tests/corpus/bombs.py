"""Files built to exhaust a parser: small on disk, enormous once expanded."""

from __future__ import annotations

import zlib


def pdf_bomb(expanded: int) -> bytes:
    """A one-page PDF whose content stream (drawing commands) inflates to ``expanded``
    bytes, at about 500:1."""
    stream = _deflated_repeats(b"0 0 m 1 1 l S\n" * 4096, expanded)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(stream), stream),
    ]
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    table = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        table,
    )
    return out


def _deflated_repeats(block: bytes, total: int) -> bytes:
    """A zlib stream of ``block`` repeated to at least ``total`` bytes, built fast: once the
    window holds the block, each further copy compresses to the same bytes, so those are
    compressed once and repeated."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)  # raw: header and checksum added here
    first, second, third = (
        deflate.compress(block) + deflate.flush(zlib.Z_SYNC_FLUSH) for _ in range(3)
    )
    assert second == third
    copies = max(total // len(block), 3)
    checksum = 1
    for _ in range(copies):
        checksum = zlib.adler32(block, checksum)
    body = first + second * (copies - 1) + deflate.flush()
    return b"\x78\xda" + body + checksum.to_bytes(4, "big")
