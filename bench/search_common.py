"""Shared by the store and search benchmarks: timing, and a BEIR corpus put into a store."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from docuchat.corpus.chunking import chunk_document
from docuchat.corpus.parse import content_hash
from docuchat.corpus.types import Block, Chunk, ParsedDocument
from docuchat.evals.beir import BeirDataset
from docuchat.store import Store

T = TypeVar("T")


def latency_ms(
    call: Callable[[T], object], inputs: Sequence[T], repeat: int = 1
) -> dict[str, float]:
    """Wall-clock p50, p95 and mean milliseconds of ``call`` over the inputs, after a
    warm-up; and the p50 of this thread's CPU time, which other processes on a busy
    machine inflate far less than wall-clock time."""
    for item in inputs[: min(len(inputs), 20)]:
        call(item)
    wall, cpu = [], []
    for _ in range(repeat):
        for item in inputs:
            start, start_cpu = time.perf_counter(), time.thread_time()
            call(item)
            cpu.append((time.thread_time() - start_cpu) * 1000)
            wall.append((time.perf_counter() - start) * 1000)
    wall.sort()
    return {
        "p50_ms": round(statistics.median(wall), 3),
        "p95_ms": round(wall[int(0.95 * (len(wall) - 1))], 3),
        "mean_ms": round(statistics.fmean(wall), 3),
        "cpu_p50_ms": round(statistics.median(cpu), 3),
    }


def beir_documents(
    dataset: BeirDataset, chunk_size: int
) -> Iterable[tuple[str, ParsedDocument, list[Chunk]]]:
    """Each corpus entry as a one-page document, cut by the real chunker (0: one chunk)."""
    for doc in dataset.corpus.values():
        parsed = ParsedDocument(
            title=doc.title,
            text=doc.text,
            blocks=(Block(page=1, start=0, end=len(doc.text)),),
            page_count=1,
            media_type="text/plain",
            metadata={"beir_id": doc.id},
        )
        if chunk_size:
            doc_hash = content_hash(doc.id.encode())
            chunks = chunk_document(
                parsed, doc_hash=doc_hash, size=chunk_size, overlap=chunk_size // 7
            )
        else:
            chunks = [Chunk(f"{doc.id}-0", 0, doc.text, 0, len(doc.text), 1, 1)]
        yield doc.id, parsed, chunks


def index_beir(store: Store, owner: str, dataset: BeirDataset, chunk_size: int) -> dict[str, str]:
    """Store the corpus; return store document id -> BEIR id."""
    ids = {}
    for beir_id, parsed, chunks in beir_documents(dataset, chunk_size):
        record = store.add_document(owner, parsed, chunks, content_hash=f"beir:{beir_id}").document
        ids[record.id] = beir_id
    return ids
