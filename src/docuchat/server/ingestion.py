"""Upload jobs from the queue into the store, on threads of any server or worker process.

Each thread claims a job from the queue the processes share (the database's
``upload_jobs``, see ``docuchat.store.coordination``), reads its files one at
a time from the spool and stores each as soon as it is parsed (searchable at
once), recording the job's progress after every file; embeddings are computed
once the job's files are in. A job taken over from a dead process starts
after its last recorded file. A process that is stopping puts its job back in
the queue after the file in hand, with its progress.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, replace

from docuchat.corpus.ingest import FileReport, SkippedFile, embed_pending, ingest_data
from docuchat.embeddings import Embedder
from docuchat.errors import DocuchatError, IngestError, StoreError
from docuchat.server.memory import return_freed_memory
from docuchat.store import Store
from docuchat.store.coordination import Claim, Coordination, UploadJob

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
"""Claims of a job whose processes die while running it, before it fails."""


@dataclass(frozen=True, slots=True)
class Upload:
    name: str
    """The file's own name, without any folder the client sent."""
    data: bytes


def ingest_upload(store: Store, owner: str, upload: Upload, *, max_bytes: int) -> FileReport:
    """Parse, chunk and store one uploaded file (and its attachments); uploading a name
    again replaces that document."""
    return ingest_data(
        store, owner, upload.data, upload.name, source=upload.name, max_bytes=max_bytes
    )


class IngestionWorker:
    """Runs upload jobs from the queue on ``threads`` threads, as the process ``worker``.

    The threads wait ``poll_seconds`` between looks at an empty queue, or until
    :meth:`wake`.
    """

    def __init__(
        self,
        store: Store,
        coordination: Coordination,
        embedder: Embedder | None,
        *,
        worker: str,
        threads: int,
        max_file_bytes: int,
        poll_seconds: float,
    ) -> None:
        self.store = store
        self.coordination = coordination
        self.embedder = embedder
        self.worker = worker
        self.max_file_bytes = max_file_bytes
        self.poll_seconds = poll_seconds
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._threads = [
            threading.Thread(target=self._loop, name=f"docuchat-ingest-{i}", daemon=True)
            for i in range(threads)
        ]

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def wake(self) -> None:
        """Jobs may be waiting: look now."""
        self._wake.set()

    def close(self) -> None:
        """Stop: each thread puts its job back in the queue after the file in hand."""
        self._stopping.set()
        self._wake.set()
        for thread in self._threads:
            if thread.is_alive():
                thread.join()

    def _loop(self) -> None:
        while not self._stopping.is_set():
            try:
                claim = self.coordination.claim(self.worker, max_attempts=MAX_ATTEMPTS)
            except StoreError as exc:
                log.warning("cannot take upload jobs from the queue: %s", exc)
                claim = None
            if claim is None:
                self._wake.wait(self.poll_seconds)
                self._wake.clear()
                continue
            self._finish(claim, self._run(claim))
            return_freed_memory()

    def _run(self, claim: Claim) -> UploadJob | None:
        """The job once run (done or failed), or None if it left this process's hands."""
        job = claim.job
        try:
            for position in range(job.done, len(job.files)):
                if self._stopping.is_set():
                    self._release(claim, job)
                    return None
                upload = Upload(job.files[position], self.coordination.read_file(claim, position))
                job = self._ingest(job, upload)
                if not self.coordination.save(claim, job):
                    log.warning("upload job %s was taken over by another process", job.id)
                    return None
            if self.embedder is not None:
                embed_pending(self.store, job.owner, self.embedder)
            return replace(job, status="done")
        except DocuchatError as exc:
            log.warning("upload job %s failed: %s", job.id, exc)
            return replace(job, status="failed", error=str(exc))
        except Exception as exc:
            log.exception("upload job %s failed", job.id)
            return replace(job, status="failed", error=f"internal error: {type(exc).__name__}")

    def _ingest(self, job: UploadJob, upload: Upload) -> UploadJob:
        """The job once ``upload`` is stored, or skipped with its reason."""
        try:
            found = ingest_upload(self.store, job.owner, upload, max_bytes=self.max_file_bytes)
        except IngestError as exc:
            skipped = SkippedFile(upload.name, exc.reason, str(exc))
            return replace(job, done=job.done + 1, skipped=(*job.skipped, skipped))
        return replace(
            job,
            done=job.done + 1,
            documents=(*job.documents, *found.ingested),
            skipped=(*job.skipped, *found.skipped),
        )

    def _release(self, claim: Claim, job: UploadJob) -> None:
        try:
            self.coordination.release(claim, job)
        except StoreError as exc:  # once this process has left, another takes the job over
            log.warning("cannot put upload job %s back in the queue: %s", job.id, exc)

    def _finish(self, claim: Claim, job: UploadJob | None) -> None:
        """Record the job's end; while the database fails, try again (the job is still ours)."""
        while job is not None:
            try:
                if not self.coordination.save(claim, job):
                    log.warning("upload job %s was taken over by another process", job.id)
                return
            except StoreError as exc:
                log.warning("cannot record the end of upload job %s: %s", job.id, exc)
                if self._stopping.wait(self.poll_seconds):
                    return
