"""Files into the store: parse, chunk and store each file, then embed in batches.

A stored document is searchable by BM25 at once; vectors come afterwards from
:func:`embed_pending`, which only embeds texts the store has no vector for
(under that model), so it resumes where an interrupted run stopped and never
embeds an unchanged chunk twice. A file that fails is reported with its reason
and nothing of it is written; the other files go on. Files are parsed in the
sandbox (``docuchat.corpus.sandbox``): a bomb or a crash costs only that file.
An e-mail's attachments become documents of their own (or are skipped with their
reason), named ``message.eml › attachment.pdf``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from docuchat.corpus.chunking import chunk_document
from docuchat.corpus.parse import DEFAULT_MAX_BYTES, PageProgress, content_hash
from docuchat.corpus.sandbox import parse_isolated
from docuchat.embeddings import Embedder
from docuchat.errors import IngestError
from docuchat.store import AddStatus, Store

Progress = Callable[[int, int, str], None]
"""Called as ``progress(done, total, what)`` after each step."""

ATTACHMENT_MARK = " › "
MAX_NESTING = 2  # an e-mail attached to an e-mail, and its attachments; no deeper

DEFAULT_CHUNK_SIZE = 1000
DEFAULT_OVERLAP = 150
DEFAULT_EMBED_BATCH = 32


@dataclass(frozen=True, slots=True)
class IngestedFile:
    path: str
    status: AddStatus
    doc_id: str
    title: str
    pages: int
    chunks: int


@dataclass(frozen=True, slots=True)
class SkippedFile:
    path: str
    reason: str  # the error's short reason, e.g. "password-protected"
    message: str


@dataclass(slots=True)
class IngestReport:
    ingested: list[IngestedFile] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)

    @property
    def pages(self) -> int:
        return sum(f.pages for f in self.ingested)

    @property
    def chunks(self) -> int:
        return sum(f.chunks for f in self.ingested)

    def statuses(self) -> dict[str, int]:
        """How many files were added, unchanged or replaced."""
        return dict(Counter(f.status for f in self.ingested))

    def to_dict(self) -> dict[str, Any]:
        return {
            "documents": len(self.ingested),
            **self.statuses(),
            "pages": self.pages,
            "chunks": self.chunks,
            "skipped": len(self.skipped),
            "files": [asdict(f) for f in self.ingested],
            "skipped_files": [asdict(f) for f in self.skipped],
        }


def find_files(paths: Iterable[str | Path]) -> list[Path]:
    """Each path named, plus every file under the folders named (recursively, hidden
    ones left out), each once, in order. Files of a type that cannot be read are
    kept, so that ingesting them reports why."""
    found: dict[Path, None] = {}
    for path in map(Path, paths):
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                hidden = any(part.startswith(".") for part in child.relative_to(path).parts)
                if child.is_file() and not hidden:
                    found.setdefault(child, None)
        else:
            found.setdefault(path, None)
    return list(found)


@dataclass(slots=True)
class FileReport:
    """What became of one file and of the files inside it (attachments)."""

    ingested: list[IngestedFile] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)


def ingest_data(
    store: Store,
    owner: str,
    data: bytes,
    name: str,
    *,
    source: str,
    max_bytes: int = DEFAULT_MAX_BYTES,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    overlap: int = DEFAULT_OVERLAP,
    progress: PageProgress | None = None,
) -> FileReport:
    """Parse (sandboxed), chunk and store one file with its original bytes, in one
    transaction, then its attachments; IngestError if the file itself cannot be read."""
    report = FileReport()
    _ingest(store, owner, data, name, source, report, max_bytes, chunk_size, overlap, progress, 0)
    return report


def _ingest(
    store: Store,
    owner: str,
    data: bytes,
    name: str,
    source: str,
    report: FileReport,
    max_bytes: int,
    chunk_size: int,
    overlap: int,
    progress: PageProgress | None,
    depth: int,
) -> None:
    document = parse_isolated(data, name, max_bytes=max_bytes, progress=progress)
    digest = content_hash(data)
    chunks = chunk_document(document, doc_hash=digest, size=chunk_size, overlap=overlap)
    result = store.add_document(
        owner, document, chunks, content_hash=digest, source=source, original=data
    )
    report.ingested.append(
        IngestedFile(
            path=name,
            status=result.status,
            doc_id=result.document.id,
            title=result.document.title,
            pages=result.document.page_count,
            chunks=result.document.chunk_count,
        )
    )
    for attachment in document.attachments:
        inner = f"{name}{ATTACHMENT_MARK}{attachment.name}"
        try:
            if depth + 1 > MAX_NESTING:
                raise IngestError("attachments nested deeper than two levels are not read")
            _ingest(
                store, owner, attachment.data, inner, f"{source}{ATTACHMENT_MARK}{attachment.name}",
                report, max_bytes, chunk_size, overlap, progress, depth + 1,
            )  # fmt: skip
        except IngestError as exc:
            report.skipped.append(SkippedFile(inner, exc.reason, str(exc)))


def ingest_file(
    store: Store,
    owner: str,
    path: Path,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    overlap: int = DEFAULT_OVERLAP,
    progress: PageProgress | None = None,
) -> FileReport:
    """Read one file within ``max_bytes`` and ingest it (see ``ingest_data``)."""
    data = _read_bounded(path, max_bytes)
    return ingest_data(
        store, owner, data, str(path), source=str(path.resolve()), max_bytes=max_bytes,
        chunk_size=chunk_size, overlap=overlap, progress=progress,
    )  # fmt: skip


def ingest_paths(
    store: Store,
    owner: str,
    paths: Iterable[str | Path],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    overlap: int = DEFAULT_OVERLAP,
    progress: Progress | None = None,
) -> IngestReport:
    """Ingest files and folders; a file that fails is skipped with its reason."""
    files = find_files(paths)
    report = IngestReport()
    for done, path in enumerate(files, 1):

        def pages(page: int, count: int, done: int = done, name: str = path.name) -> None:
            if progress:
                progress(done - 1, len(files), f"{name}: OCR page {page}/{count}")

        try:
            found = ingest_file(
                store, owner, path, max_bytes=max_bytes, chunk_size=chunk_size, overlap=overlap,
                progress=pages,
            )  # fmt: skip
            report.ingested += found.ingested
            report.skipped += found.skipped
        except IngestError as exc:
            report.skipped.append(SkippedFile(str(path), exc.reason, str(exc)))
        if progress:
            progress(done, len(files), path.name)
    return report


def embed_pending(
    store: Store,
    owner: str,
    embedder: Embedder,
    *,
    batch_size: int = DEFAULT_EMBED_BATCH,
    progress: Progress | None = None,
) -> int:
    """Embed the owner's chunk texts that have no vector in this embedder's space (from
    it or another variant of its model); return how many.

    Each batch is stored as soon as it is embedded.
    """
    total = store.count_texts_to_embed(owner, embedder.space)
    done = 0
    for batch in store.texts_to_embed(owner, embedder.space, batch_size=batch_size):
        vectors = embedder.embed([item.text for item in batch])
        store.put_embeddings(owner, embedder.space, [item.text_hash for item in batch], vectors)
        done += len(batch)
        if progress:
            progress(done, total, embedder.name)
    return done


def _read_bounded(path: Path, max_bytes: int) -> bytes:
    """The file's bytes, at most one past the limit (so the parser can report it too large)."""
    try:
        with path.open("rb") as handle:
            return handle.read(max_bytes + 1)
    except OSError as exc:
        raise IngestError(f"cannot read the file: {exc.strerror}", path=str(path)) from exc
