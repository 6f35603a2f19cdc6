"""This process among the deployment's: its heartbeat, and the signals sent to it.

One thread per process writes the heartbeat every ``heartbeat_seconds`` and,
between beats, waits on the database's signals: a cancel request for one of
this process's runs is answered (the run cancelled, or "not here"), and a new
upload job wakes the ingestion threads. When the database fails, the thread
logs it and tries again at the next beat; meanwhile other processes may take
this one for dead and its job over, which the claim's fence makes safe
(``docuchat.store.coordination``).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable

from docuchat.errors import StoreError
from docuchat.store.coordination import (
    CancelRequest,
    Coordination,
    ProcessInfo,
    Signals,
    new_process_id,
)

log = logging.getLogger(__name__)

WAIT_SLICE_S = 0.5
"""Longest single wait for a signal, so that stopping never waits for a whole beat."""


def this_process(*, ingests: bool) -> ProcessInfo:
    """A new identity for this process (a restarted process is another one)."""
    return ProcessInfo(new_process_id(), socket.gethostname(), os.getpid(), ingests)


class Presence:
    """Keeps ``process`` alive in the database and hands it what is sent to it.

    ``on_cancel`` cancels a run of this process and says whether it was here;
    ``on_jobs`` is told that upload jobs may be waiting.
    """

    def __init__(
        self,
        coordination: Coordination,
        process: ProcessInfo,
        *,
        heartbeat_seconds: float,
        on_cancel: Callable[[CancelRequest], bool],
        on_jobs: Callable[[], None],
    ) -> None:
        self.process = process
        self._coordination = coordination
        self._heartbeat_seconds = heartbeat_seconds
        self._on_cancel = on_cancel
        self._on_jobs = on_jobs
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="docuchat-presence", daemon=True)

    def start(self) -> None:
        """Beat once (so that the process is known before it serves), then keep beating."""
        self._coordination.heartbeat(self.process)
        self._thread.start()

    def stop(self) -> None:
        """Stop beating and leave: from now on this process is dead for the others."""
        self._stopping.set()
        self._thread.join()
        try:
            self._coordination.leave(self.process.id)
        except StoreError as exc:
            log.warning("could not record that process %s stopped: %s", self.process.id, exc)

    def _run(self) -> None:
        signals: Signals | None = None
        next_beat = time.monotonic() + self._heartbeat_seconds
        while not self._stopping.is_set():
            try:
                if signals is None:
                    signals = self._coordination.signals(self.process.id)
                    # Whatever was signalled while nobody listened.
                    self._answer_cancels()
                    self._on_jobs()
                if time.monotonic() >= next_beat:
                    next_beat = time.monotonic() + self._heartbeat_seconds
                    self._coordination.heartbeat(self.process)
                wait = min(WAIT_SLICE_S, max(0.0, next_beat - time.monotonic()))
                found = signals.wait(wait)
                if "cancels" in found:
                    self._answer_cancels()
                if "jobs" in found:
                    self._on_jobs()
            except StoreError as exc:
                log.warning("process %s cannot reach the database: %s", self.process.id, exc)
                if signals is not None:
                    signals.close()
                    signals = None
                self._stopping.wait(self._heartbeat_seconds)
        if signals is not None:
            signals.close()

    def _answer_cancels(self) -> None:
        for request in self._coordination.cancel_requests(self.process.id):
            self._coordination.answer_cancel(request.key, self._on_cancel(request))
