"""Every error docuchat raises to its caller.

Hierarchy::

    DocuchatError
    ├── ConfigError                 bad model spec, missing key, bad setting
    ├── ModelError                  a provider call failed (after retries)
    │   ├── ModelHTTPError          non-2xx answer; carries status and the server's message
    │   │   └── ContextOverflow     the request does not fit the model's context window
    │   ├── ModelConnectionError    timeout or dropped connection
    │   └── ModelResponseError      2xx answer we could not understand
    ├── ScriptExhaustedError        the scripted test model ran out of steps / had steps left
    ├── IngestError                 a file could not be ingested; nothing was written
    │   ├── UnsupportedFileType
    │   ├── EmptyDocument
    │   ├── FileTooLarge
    │   ├── EncryptedDocument       "password-protected"
    │   ├── CorruptDocument
    │   ├── ArchiveBomb             a zip (DOCX, PPTX, XLSX, EPUB) that expands beyond the limit
    │   └── ParseLimitExceeded      more pages, characters, pixels, cells or memory than a
    │                               parse may take (a decompression bomb, a huge sheet)
    ├── StoreError                  the store cannot do what was asked
    │   └── NotFound                no such row *for this owner* (never says whether it exists)
    ├── QueueFull                   the upload queue holds all it may; try again after retry_after
    ├── AuthError                   missing or unknown API key
    └── MCPServerError              an MCP server could not be started or listed no usable tools

Errors that the *model* should see (unknown tool, invalid arguments, tool
exceptions) are not exceptions here: the agent loop turns them into tool
results with ``is_error=True``. Constructors have no side effects.
"""

from __future__ import annotations


class DocuchatError(Exception):
    """Root of every docuchat error."""


class ConfigError(DocuchatError):
    """A model spec, credential or setting is missing or malformed."""


class ModelError(DocuchatError):
    """A model provider call failed and will not be retried further."""

    retryable: bool = False


class ModelHTTPError(ModelError):
    """The provider answered with a non-success HTTP status."""

    def __init__(self, status: int, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:  # type: ignore[override]
        return self.status in (408, 409, 425, 429) or self.status >= 500


class ContextOverflow(ModelHTTPError):
    """The server refused the request because it does not fit the model's context window.

    ``context_window`` and ``prompt_tokens`` are the server's own figures when it gave them.
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        context_window: int | None = None,
        prompt_tokens: int | None = None,
    ) -> None:
        super().__init__(status, message)
        self.context_window = context_window
        self.prompt_tokens = prompt_tokens


class ModelConnectionError(ModelError):
    """Timeout, refused or dropped connection: worth retrying. ``url`` is the address that
    could not be reached, when the adapter knows it."""

    retryable = True

    def __init__(self, message: str, *, url: str | None = None) -> None:
        super().__init__(message)
        self.url = url


class ModelResponseError(ModelError):
    """The provider answered 2xx but the body could not be understood."""


class ScriptExhaustedError(DocuchatError):
    """The scripted model was called more times than it has steps, or steps were left over."""


class IngestError(DocuchatError):
    """A document could not be ingested. Nothing was written for it."""

    reason: str = "ingest failed"

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class UnsupportedFileType(IngestError):
    reason = "unsupported file type"


class EmptyDocument(IngestError):
    reason = "empty document"


class FileTooLarge(IngestError):
    reason = "file too large"


class EncryptedDocument(IngestError):
    reason = "password-protected"


class CorruptDocument(IngestError):
    reason = "corrupt file"


class ArchiveBomb(IngestError):
    reason = "archive expands too much"


class ParseLimitExceeded(IngestError):
    reason = "exceeds the parse limits"


class StoreError(DocuchatError):
    """The store could not perform the operation."""


class NotFound(StoreError):
    """No such item for this owner. Deliberately says nothing about other owners."""


class QueueFull(DocuchatError):
    """The upload queue already holds as many bytes as it may; nothing was kept."""

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class MCPServerError(DocuchatError):
    """An MCP server could not be started, or its tools cannot be offered to a model."""


class AuthError(DocuchatError):
    """Missing, malformed or unknown API key."""


__all__ = [
    "ArchiveBomb",
    "AuthError",
    "ConfigError",
    "ContextOverflow",
    "CorruptDocument",
    "DocuchatError",
    "EmptyDocument",
    "EncryptedDocument",
    "FileTooLarge",
    "IngestError",
    "MCPServerError",
    "ModelConnectionError",
    "ModelError",
    "ModelHTTPError",
    "ModelResponseError",
    "NotFound",
    "ParseLimitExceeded",
    "QueueFull",
    "ScriptExhaustedError",
    "StoreError",
    "UnsupportedFileType",
]
