"""Ingestion throughput: ``python bench/store_ingest.py [--embedder SPEC] [--json]``.

End to end through ``docuchat.corpus.ingest`` into a fresh SQLite store:

- the real PDFs in tests/corpus/fixtures/real-pdfs (read, parse with the chosen
  parser, chunk, store with the BM25 index): files, pages and chunks per second,
  best of ``--repeat`` runs;
- the SciFact abstracts written out as text files: documents, chunks and MB of
  text per second;
- embedding the stored SciFact chunks with ``embed_pending`` (batches, cache
  writes included): chunks per second, for each ``--embedder`` given (the
  default ``hash:384`` shows the store's own overhead; ``minilm-onnx`` the real
  model, on the chunks of the first ``--embed-docs`` documents).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from docuchat.corpus.ingest import embed_pending, ingest_paths
from docuchat.embeddings import get_embedder
from docuchat.evals.beir import load_beir
from docuchat.store import SQLiteStore

ROOT = Path(__file__).resolve().parents[1]
REAL_PDFS = ROOT / "tests" / "corpus" / "fixtures" / "real-pdfs"
SCIFACT = ROOT.parent / "shared" / "data" / "scifact"
OWNER = "bench"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", action="append", default=None, metavar="SPEC")
    parser.add_argument("--embed-docs", type=int, default=500, help="documents a real model embeds")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        result = {
            "pdfs": _pdfs(Path(folder), args.repeat),
            **_scifact(Path(folder), args.embedder or ["hash:384"], args.embed_docs),
        }
    print(json.dumps(result, indent=2) if args.json else _report(result))


def _pdfs(folder: Path, repeat: int) -> dict[str, Any]:
    best: dict[str, Any] = {}
    for run in range(repeat):
        store = SQLiteStore(folder / f"pdfs-{run}.db")
        started = time.perf_counter()
        report = ingest_paths(store, OWNER, [REAL_PDFS])
        seconds = time.perf_counter() - started
        store.close()
        if not best or seconds < best["seconds"]:
            best = {
                "seconds": round(seconds, 3),
                "files": len(report.ingested) + len(report.skipped),
                "pages": report.pages,
                "chunks": report.chunks,
                "files_per_s": round((len(report.ingested) + len(report.skipped)) / seconds, 1),
                "pages_per_s": round(report.pages / seconds, 1),
                "chunks_per_s": round(report.chunks / seconds, 1),
            }
    return best


def _scifact(folder: Path, embedders: list[str], embed_docs: int) -> dict[str, Any]:
    texts = folder / "scifact"
    texts.mkdir()
    size = 0
    for doc in load_beir(SCIFACT).corpus.values():
        body = f"{doc.title}\n\n{doc.text}\n"
        (texts / f"{doc.id}.txt").write_text(body)
        size += len(body.encode())
    store = SQLiteStore(folder / "scifact.db")
    started = time.perf_counter()
    report = ingest_paths(store, OWNER, [texts])
    seconds = time.perf_counter() - started
    result: dict[str, Any] = {
        "text": {
            "seconds": round(seconds, 2),
            "documents": len(report.ingested),
            "chunks": report.chunks,
            "documents_per_s": round(len(report.ingested) / seconds),
            "chunks_per_s": round(report.chunks / seconds),
            "mb_per_s": round(size / seconds / 1e6, 2),
        },
        "embedding": {},
    }
    store.close()
    for spec in embedders:
        result["embedding"].update(_embedding(folder, texts, spec, embed_docs))
    return result


def _embedding(folder: Path, texts: Path, spec: str, embed_docs: int) -> dict[str, Any]:
    """Chunks per second through embed_pending; a real model gets the first documents only."""
    embedder = get_embedder(spec)
    assert embedder is not None, f"{spec} is not an embedder"
    files = sorted(texts.iterdir())
    store = SQLiteStore(folder / f"embed-{embedder.name}.db")
    ingest_paths(store, OWNER, files if spec.startswith("hash") else files[:embed_docs])
    started = time.perf_counter()
    done = embed_pending(store, OWNER, embedder, batch_size=32)
    seconds = time.perf_counter() - started
    store.close()
    return {
        embedder.name: {
            "chunks": done,
            "seconds": round(seconds, 2),
            "chunks_per_s": round(done / seconds, 1),
        }
    }


def _report(r: dict[str, Any]) -> str:
    p, t = r["pdfs"], r["text"]
    lines = [
        f"real PDFs: {p['files']} files, {p['pages']} pages, {p['chunks']} chunks"
        f" in {p['seconds']} s: {p['pages_per_s']} pages/s, {p['chunks_per_s']} chunks/s",
        f"SciFact as text files: {t['documents']} documents, {t['chunks']} chunks"
        f" in {t['seconds']} s: {t['documents_per_s']} documents/s,"
        f" {t['chunks_per_s']} chunks/s, {t['mb_per_s']} MB/s",
    ]
    for name, e in r["embedding"].items():
        lines.append(
            f"embedding with {name}: {e['chunks']} chunks in {e['seconds']} s:"
            f" {e['chunks_per_s']} chunks/s"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
