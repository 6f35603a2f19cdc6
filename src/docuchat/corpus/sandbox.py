"""Parsing in a child process with bounded memory and time: a bad file costs no server.

A decompression bomb (a PDF stream or an image that expands to gigabytes), a
parser stuck in a loop, or a crash in a C library (PDFium, libxml2, Tesseract)
must not take the server or the CLI down. ``parse_isolated`` hands the file to a
long-lived worker process whose address space is capped (``RLIMIT_AS``: what it
holds after start-up plus ``memory_bytes``) and which must answer within
``idle_seconds`` (each page read by OCR restarts that clock). If the worker runs
out of memory, is killed or dies, the file gets a typed ``ParseLimitExceeded``
and a fresh worker takes the next file.

Results come back as JSON plus raw arrays, never as pickles: a worker that a
hostile file took over must not be able to run code in its parent.
"""

from __future__ import annotations

import json
import os
import resource
import select
import struct
import subprocess
import sys
import threading
import time
from typing import IO, Any

import numpy as np

from docuchat import errors
from docuchat.corpus.locations import place_from_json, place_json
from docuchat.corpus.parse import DEFAULT_MAX_BYTES, PageProgress, parse_bytes
from docuchat.corpus.render import render_page
from docuchat.corpus.types import Attachment, Block, PageBoxes, ParsedDocument
from docuchat.errors import DocuchatError, IngestError, NotFound, ParseLimitExceeded

DEFAULT_MEMORY_BYTES = 1024 * 1024 * 1024  # beyond what the worker holds after start-up
DEFAULT_IDLE_SECONDS = 180.0  # a page must be done within this (OCR of a page: 1-5 s)
_HEADER = struct.Struct("<Q")

__all__ = ["ParseSandbox", "parse_isolated"]


class ParseSandbox:
    """One worker process, used by one parse at a time (callers take turns)."""

    def __init__(
        self,
        *,
        memory_bytes: int = DEFAULT_MEMORY_BYTES,
        idle_seconds: float = DEFAULT_IDLE_SECONDS,
    ) -> None:
        self.memory_bytes = memory_bytes
        self.idle_seconds = idle_seconds
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def parse(
        self,
        data: bytes,
        filename: str,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        progress: PageProgress | None = None,
    ) -> ParsedDocument:
        request = {"parse": {"filename": filename, "max_bytes": max_bytes}}
        return _document(*self._ask(request, data, filename, progress))

    def render(self, data: bytes, media_type: str, page: int, width: int) -> bytes:
        """Page ``page`` of an original file as a PNG (``docuchat.corpus.render``)."""
        request = {"render": {"media_type": media_type, "page": page, "width": width}}
        _, (png,) = self._ask(request, data, f"page {page}", None)
        return png

    def close(self) -> None:
        with self._lock:
            self._stop()

    def _ask(
        self,
        request: dict[str, Any],
        data: bytes,
        filename: str,
        progress: PageProgress | None,
    ) -> tuple[dict[str, Any], list[bytes]]:
        """Send one request and wait for its answer (progress reports passed on)."""
        with self._lock:
            process = self._worker()
            assert process.stdin is not None and process.stdout is not None
            try:
                _send(process.stdin, request, [data])
                while True:
                    message, blobs = _receive(process.stdout, self.idle_seconds)
                    if "progress" not in message:
                        break
                    if progress:
                        progress(*message["progress"])
            except (_WorkerGone, OSError) as exc:
                self._stop()
                raise ParseLimitExceeded(
                    f"parsing stopped: {exc} (a parse may use {self.memory_bytes // 2**20:,} MiB"
                    f" and {self.idle_seconds:g} s per page)",
                    path=filename,
                ) from None
        if "error" in message:
            raise _error(message, filename)
        return message, blobs

    def _worker(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "docuchat.corpus.sandbox", str(self.memory_bytes)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env={**os.environ, "OMP_THREAD_LIMIT": "1"},
            )
        return self._process

    def _stop(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.kill()
            process.wait()
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    stream.close()


_shared: ParseSandbox | None = None
_shared_lock = threading.Lock()


def parse_isolated(
    data: bytes,
    filename: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    progress: PageProgress | None = None,
) -> ParsedDocument:
    """``parse_bytes`` in this process's shared sandbox (started on first use)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = ParseSandbox()
        sandbox = _shared
    return sandbox.parse(data, filename, max_bytes=max_bytes, progress=progress)


class _WorkerGone(Exception):
    pass


def _send(stream: IO[bytes], message: dict[str, Any], blobs: list[bytes]) -> None:
    header = json.dumps({**message, "blobs": [len(blob) for blob in blobs]}).encode()
    stream.write(_HEADER.pack(len(header)) + header)
    for blob in blobs:
        stream.write(blob)
    stream.flush()


def _receive(stream: IO[bytes], timeout: float | None) -> tuple[dict[str, Any], list[bytes]]:
    (length,) = _HEADER.unpack(_read(stream, _HEADER.size, timeout))
    message = json.loads(_read(stream, length, timeout))
    blobs = [_read(stream, size, timeout) for size in message.pop("blobs")]
    return message, blobs


def _read(stream: IO[bytes], size: int, timeout: float | None) -> bytes:
    parts, left = [], size
    deadline = None if timeout is None else time.monotonic() + timeout
    while left:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([stream], [], [], wait)[0]:
                raise _WorkerGone(f"no answer within {timeout:g} s")
        part = os.read(stream.fileno(), min(left, 1 << 20))
        if not part:
            raise _WorkerGone("the parser ran out of memory or crashed")
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _error(message: dict[str, Any], filename: str) -> DocuchatError:
    if message["error"] == "NotFound":
        return NotFound(str(message["message"]))
    kind = getattr(errors, str(message["error"]), None)
    if not (isinstance(kind, type) and issubclass(kind, IngestError)):
        kind = IngestError
    return kind(str(message["message"]), path=filename)


def _document_message(doc: ParsedDocument) -> tuple[dict[str, Any], list[bytes]]:
    blobs: list[bytes] = []
    pages = []
    for page in doc.boxes:
        pages.append([page.page, len(page.spans)])
        blobs += [page.spans.astype("<i8").tobytes(), page.boxes.astype("<f4").tobytes()]
    for attachment in doc.attachments:
        blobs.append(attachment.data)
    return {
        "title": doc.title,
        "text": doc.text,
        "blocks": [
            [b.page, b.start, b.end, place_json(b.place) if b.place else None] for b in doc.blocks
        ],
        "page_count": doc.page_count,
        "media_type": doc.media_type,
        "metadata": dict(doc.metadata),
        "boxes": pages,
        "attachments": [attachment.name for attachment in doc.attachments],
    }, blobs


def _document(message: dict[str, Any], blobs: list[bytes]) -> ParsedDocument:
    boxes = []
    for index, (page, count) in enumerate(message["boxes"]):
        spans = np.frombuffer(blobs[2 * index], dtype="<i8").reshape(count, 2)
        rects = np.frombuffer(blobs[2 * index + 1], dtype="<f4").reshape(count, 4)
        boxes.append(PageBoxes(int(page), spans.astype(np.int64), rects.astype(np.float32)))
    attached = blobs[2 * len(boxes) :]
    return ParsedDocument(
        title=str(message["title"]),
        text=str(message["text"]),
        blocks=tuple(
            Block(int(page), int(start), int(end), place_from_json(place) if place else None)
            for page, start, end, place in message["blocks"]
        ),
        page_count=int(message["page_count"]),
        media_type=str(message["media_type"]),
        metadata=dict(message["metadata"]),
        boxes=tuple(boxes),
        attachments=tuple(
            Attachment(str(name), data)
            for name, data in zip(message["attachments"], attached, strict=True)
        ),
    )


def _serve(memory_bytes: int) -> None:
    """The worker: parse each file sent on stdin, answer on stdout, within the limits."""
    import docuchat.corpus.parse  # noqa: F401  (every parser loaded before the cap)

    with open("/proc/self/statm") as statm:
        held = int(statm.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (held + memory_bytes, held + memory_bytes))
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write to the answer stream
    while True:
        try:
            request, (data,) = _receive(requests, None)
        except _WorkerGone:
            return  # the parent closed the pipe

        def report(page: int, pages: int) -> None:
            _send(answers, {"progress": [page, pages]}, [])

        try:
            if "render" in request:
                asked = request["render"]
                png = render_page(data, asked["media_type"], asked["page"], asked["width"])
                _send(answers, {}, [png])
            else:
                asked = request["parse"]
                doc = parse_bytes(
                    data, asked["filename"], max_bytes=asked["max_bytes"], progress=report
                )
                _send(answers, *_document_message(doc))
        except (IngestError, NotFound) as exc:
            _send(answers, {"error": type(exc).__name__, "message": str(exc)}, [])
        except MemoryError:
            limit = f"it needs more than {memory_bytes // 2**20:,} MiB of memory"
            _send(answers, {"error": "ParseLimitExceeded", "message": limit}, [])


if __name__ == "__main__":
    _serve(int(sys.argv[1]))
