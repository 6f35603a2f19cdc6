"""Any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, Azure-style proxies, vLLM, Ollama, ...).

Texts go out in batches; transient failures (429, 5xx, timeouts, dropped
connections) are retried with the same :class:`~docuchat.models.http.RetryPolicy`
the chat adapters use, everything else is a typed :mod:`docuchat.errors` error
carrying the server's message.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import numpy as np

from docuchat.embeddings.base import Vectors, l2_normalize
from docuchat.errors import (
    ConfigError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelResponseError,
)
from docuchat.models.http import (
    RetryPolicy,
    env_credentials,
    provider_message,
    require_key,
    retry_after_seconds,
)

OPENAI_BASE_URL = "https://api.openai.com/v1"
_TIMEOUT = httpx.Timeout(60.0, connect=10.0)


class OpenAIEmbedder:
    """Embeds through ``POST {base_url}/embeddings``.

    ``dim`` is learnt from the first answer when not given. The embedder's
    ``name`` includes the server's host unless it is OpenAI itself: the same
    model name served elsewhere is not guaranteed to give the same vectors.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str = OPENAI_BASE_URL,
        api_key: str | None = None,
        dim: int | None = None,
        batch_size: int = 128,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        client: httpx.Client | None = None,
    ) -> None:
        url = httpx.URL(base_url)
        if url.scheme not in ("http", "https") or not url.host:
            raise ConfigError(f"base URL must be an http(s) URL, got {base_url!r}")
        if not model:
            raise ConfigError("openai embedder needs a model name: openai:<model>")
        self._model = model
        self._url = base_url.rstrip("/") + "/embeddings"
        self._host = url.host
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._dim = dim
        self._batch_size = batch_size
        self._retry = retry or RetryPolicy()
        self._sleep = sleep
        self._client = client or httpx.Client(timeout=_TIMEOUT)

    @classmethod
    def from_env(cls, model: str) -> OpenAIEmbedder:
        """Configured by ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` (optional for other servers)."""
        api_key, base_url = env_credentials("OPENAI", OPENAI_BASE_URL)
        require_key(api_key, base_url, httpx.URL(OPENAI_BASE_URL).host, "OPENAI")
        return cls(model, base_url=base_url, api_key=api_key)

    @property
    def name(self) -> str:
        if self._url.startswith(OPENAI_BASE_URL):
            return f"openai:{self._model}"
        return f"openai:{self._model}@{self._host}"

    @property
    def space(self) -> str:
        return self.name

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = self._embed_batch(["dimension probe"]).shape[1]
        return self._dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        batches = [
            self._embed_batch(texts[start : start + self._batch_size])
            for start in range(0, len(texts), self._batch_size)
        ]
        return l2_normalize(np.vstack(batches))

    def close(self) -> None:
        self._client.close()

    def _embed_batch(self, texts: Sequence[str]) -> Vectors:
        # Servers reject empty strings; a space embeds as "nothing" just as well.
        body = self._post({"model": self._model, "input": [text or " " for text in texts]})
        try:
            rows = sorted(body["data"], key=lambda row: int(row.get("index", 0)))
            vectors = np.array([row["embedding"] for row in rows], dtype=np.float32)
        except (KeyError, TypeError, AttributeError, ValueError) as error:
            raise ModelResponseError(f"unexpected embeddings answer: {error!r}") from error
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise ModelResponseError(
                f"asked for {len(texts)} embeddings, got an array of shape {vectors.shape}"
            )
        if self._dim is None:
            self._dim = int(vectors.shape[1])
        elif vectors.shape[1] != self._dim:
            raise ModelResponseError(f"expected {self._dim}-d embeddings, got {vectors.shape[1]}")
        return vectors

    def _post(self, payload: dict[str, Any]) -> Any:
        attempt = 0
        while True:
            try:
                return self._post_once(payload)
            except ModelError as error:
                delay = self._retry.delay_before_retry(error, attempt)
                if delay is None:
                    raise
            self._sleep(delay)
            attempt += 1

    def _post_once(self, payload: dict[str, Any]) -> Any:
        try:
            response = self._client.post(self._url, json=payload, headers=self._headers)
        except httpx.TimeoutException as error:
            raise ModelConnectionError(
                f"the embeddings server at {self._url} did not answer in time", url=self._url
            ) from error
        except httpx.TransportError as error:
            raise ModelConnectionError(
                f"connection to the embeddings server at {self._url} failed: {error}",
                url=self._url,
            ) from error
        if not response.is_success:
            raise ModelHTTPError(
                response.status_code,
                provider_message(response.content, response.reason_phrase),
                retry_after=retry_after_seconds(response.headers),
            )
        try:
            return response.json()
        except (ValueError, UnicodeDecodeError) as error:
            raise ModelResponseError(
                f"HTTP {response.status_code} answer is not JSON: {response.text[:200]!r}"
            ) from error
