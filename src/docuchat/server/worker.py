"""``docuchat worker``: a process that only ingests uploads from the queue (no HTTP).

For heavy OCR and embedding away from the processes that answer questions:
run ``docuchat serve --ingest-threads 0`` and as many workers as the uploads
need, on any host that reaches the database.
"""

from __future__ import annotations

import threading

from docuchat.embeddings import get_embedder
from docuchat.server.presence import this_process
from docuchat.server.services import start_ingestion
from docuchat.server.settings import ServerSettings
from docuchat.store import open_store

STOP_POLL_S = 0.5


def run_worker(settings: ServerSettings, stop: threading.Event) -> None:
    """Take upload jobs on ``settings.ingest_threads`` threads until ``stop`` is set; the job
    in hand goes back to the queue after its current file."""
    store = open_store(settings.db_path)
    try:
        process = this_process(ingests=True)
        ingestion = start_ingestion(settings, store, get_embedder(settings.embedder), process)
        try:
            while not stop.wait(STOP_POLL_S):  # a plain wait() would hold off signal handlers
                pass
        finally:
            ingestion.close()
    finally:
        store.close()
