"""The OpenAI-compatible embedder against a real local HTTP server."""

from __future__ import annotations

import socket

import numpy as np
import pytest

from docuchat.embeddings import get_embedder
from docuchat.embeddings.openai import OpenAIEmbedder
from docuchat.errors import ConfigError, ModelConnectionError, ModelHTTPError, ModelResponseError
from docuchat.models.http import RetryPolicy

from .conftest import EmbeddingsServer, answer

NO_WAIT = RetryPolicy(max_retries=2, base_delay=0.0)


def embedder(server: EmbeddingsServer, **options: object) -> OpenAIEmbedder:
    options.setdefault("retry", NO_WAIT)
    return OpenAIEmbedder("m", base_url=server.base_url, api_key="sk-test", **options)  # type: ignore[arg-type]


def expected(texts: list[str]) -> np.ndarray:
    rows = np.array([[len(t), 1.0, 0.0] for t in texts], dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_batches_keep_the_input_order_and_normalise(embeddings_server: EmbeddingsServer) -> None:
    texts = ["a", "bb", "ccc", "dddd", "eeeee"]
    vectors = embedder(embeddings_server, batch_size=2).embed(texts)

    assert embeddings_server.inputs == [["a", "bb"], ["ccc", "dddd"], ["eeeee"]]
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(vectors, expected(texts), rtol=1e-6)
    headers, body = embeddings_server.requests[0]
    assert headers["Authorization"] == "Bearer sk-test"
    assert body["model"] == "m"


def test_dimension_is_learnt_from_the_first_answer(embeddings_server: EmbeddingsServer) -> None:
    client = embedder(embeddings_server)
    assert client.dim == 3
    assert client.embed([]).shape == (0, 3)
    assert len(embeddings_server.requests) == 1  # the probe; the empty call sent nothing


def test_empty_texts_are_sent_as_a_space(embeddings_server: EmbeddingsServer) -> None:
    embedder(embeddings_server).embed(["", "x"])
    assert embeddings_server.inputs == [[" ", "x"]]


def test_transient_failures_are_retried_honouring_retry_after(
    embeddings_server: EmbeddingsServer,
) -> None:
    embeddings_server.queue(503, {"error": {"message": "overloaded"}})
    embeddings_server.queue(429, {"error": {"message": "slow down"}}, {"retry-after-ms": "7"})
    waits: list[float] = []

    vectors = embedder(embeddings_server, sleep=waits.append).embed(["hello"])

    np.testing.assert_allclose(vectors, expected(["hello"]), rtol=1e-6)
    assert len(embeddings_server.requests) == 3
    assert waits == [0.0, 0.007]


def test_client_errors_are_not_retried(embeddings_server: EmbeddingsServer) -> None:
    embeddings_server.queue(400, {"error": {"message": "input is too long"}})
    with pytest.raises(ModelHTTPError) as caught:
        embedder(embeddings_server).embed(["x"])
    assert caught.value.status == 400
    assert "input is too long" in str(caught.value)
    assert len(embeddings_server.requests) == 1


def test_retries_end(embeddings_server: EmbeddingsServer) -> None:
    for _ in range(3):
        embeddings_server.queue(500, "internal error")
    with pytest.raises(ModelHTTPError, match="internal error"):
        embedder(embeddings_server).embed(["x"])
    assert len(embeddings_server.requests) == 3  # the call and NO_WAIT's two retries


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("<html>oops</html>", "not JSON"),
        ({"data": "nope"}, "unexpected embeddings answer"),
        ({"data": [{"index": 0}]}, "unexpected embeddings answer"),
        ({"data": [{"index": 0, "embedding": [1.0]}, {"index": 1, "embedding": [1.0, 2.0]}]},
         "unexpected embeddings answer"),
        ({"data": answer(["only one"])["data"]}, "asked for 2 embeddings"),
    ],
)  # fmt: skip
def test_malformed_answers_are_typed_errors(
    embeddings_server: EmbeddingsServer, body: object, problem: str
) -> None:
    embeddings_server.queue(200, body)
    with pytest.raises(ModelResponseError, match=problem):
        embedder(embeddings_server).embed(["a", "b"])


def test_a_changed_dimension_is_an_error(embeddings_server: EmbeddingsServer) -> None:
    with pytest.raises(ModelResponseError, match="expected 5-d embeddings, got 3"):
        embedder(embeddings_server, dim=5).embed(["a"])


def test_unreachable_server_is_a_connection_error() -> None:
    with socket.socket() as probe:  # a port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = OpenAIEmbedder("m", base_url=f"http://127.0.0.1:{port}/v1", retry=NO_WAIT)
    with pytest.raises(ModelConnectionError):
        client.embed(["x"])


def test_spec_reads_the_environment(
    embeddings_server: EmbeddingsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", embeddings_server.base_url)
    client = get_embedder("openai:m")

    assert client is not None
    assert client.name == "openai:m@127.0.0.1"  # not OpenAI: the host is part of the cache key
    assert client.embed(["hi"]).shape == (1, 3)
    assert "Authorization" not in embeddings_server.requests[0][0]


def test_openai_itself_needs_a_key() -> None:
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        get_embedder("openai:text-embedding-3-small")
    assert OpenAIEmbedder("text-embedding-3-small", api_key="k").name == (
        "openai:text-embedding-3-small"
    )


@pytest.mark.parametrize("base_url", ["ftp://host/v1", "not a url"])
def test_bad_base_url_is_a_config_error(base_url: str) -> None:
    with pytest.raises(ConfigError, match="http"):
        OpenAIEmbedder("m", base_url=base_url)
