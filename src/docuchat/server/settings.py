"""The server's settings: the shared ones plus where to listen and what uploads may hold.

Same sources and order as every docuchat setting: flags > ``DOCUCHAT_*``
environment variables > ``$DOCUCHAT_HOME/config.toml`` > defaults.
"""

from __future__ import annotations

import json
from typing import Self

from pydantic import Field, model_validator

from docuchat.config import Settings
from docuchat.corpus.types import DEFAULT_MAX_BYTES
from docuchat.research.detail import QuestionLimits

MIB = 1024 * 1024


class ServerSettings(Settings):
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    max_file_bytes: int = Field(default=DEFAULT_MAX_BYTES, gt=0)
    """Largest file one upload may contain."""
    max_upload_bytes: int = Field(default=200 * MIB, gt=0)
    """Largest upload request (all its files together)."""
    max_files: int = Field(default=20, gt=0)
    """Most files in one upload."""
    max_json_bytes: int = Field(default=MIB, gt=0)
    """Largest JSON request body (a question, a conversation sent to ``/v1``)."""
    read_timeout: float = Field(default=10.0, gt=0)
    """Seconds a client has to send a request's head, then its JSON body; the longest pause
    within an upload's body."""
    history_turns: int = Field(default=10, ge=0)
    """Earlier turns of a conversation the model sees with a follow-up question."""
    workers: int = Field(default=1, ge=1)
    """Server processes sharing the port and the database (``docuchat serve --workers N``)."""
    ingest_threads: int = Field(default=1, ge=0)
    """Threads of each process that ingest upload jobs from the queue (0: none in this
    process; ``docuchat worker`` processes then do it)."""
    max_queued_bytes: int = Field(default=1024 * MIB, gt=0)
    """Bytes that the uploads not yet ingested may hold in the database; an upload beyond
    is refused with 503 and ``Retry-After``."""
    heartbeat_seconds: float = Field(default=2.0, gt=0)
    """How often each process writes that it is alive; after ``DEAD_AFTER_BEATS`` missed
    beats it is dead, and another process takes over its upload job."""
    max_question_tool_calls: int = Field(default=20, ge=1)
    """The most tool calls one question may ask for (or its detail level give it)."""
    max_question_iterations: int = Field(default=20, ge=1)
    max_question_timeout: float = Field(default=300.0, gt=0)
    """The most seconds one question may ask for."""

    @model_validator(mode="after")
    def _one_upload_fits_the_queue(self) -> Self:
        if self.max_queued_bytes < self.max_upload_bytes:
            raise ValueError("max_queued_bytes must be at least max_upload_bytes")
        return self

    def environment(self) -> dict[str, str]:
        """These settings as ``DOCUCHAT_*`` variables, for processes that read them back."""
        return {
            f"DOCUCHAT_{name.upper()}": json.dumps(value) if isinstance(value, dict) else str(value)
            for name, value in self.model_dump(mode="json").items()
            if value is not None
        }

    @property
    def dead_after(self) -> float:
        """Seconds without a heartbeat after which a process is dead."""
        return self.heartbeat_seconds * DEAD_AFTER_BEATS

    @property
    def maxima(self) -> QuestionLimits:
        return QuestionLimits(
            self.max_question_tool_calls, self.max_question_iterations, self.max_question_timeout
        )


DEAD_AFTER_BEATS = 5
