"""Retries, backoff, Retry-After and error mapping, against a real local HTTP server."""

from __future__ import annotations

import dataclasses
import email.utils
import socket
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from docuchat.errors import (
    ConfigError,
    ModelConnectionError,
    ModelHTTPError,
    ModelResponseError,
)
from docuchat.models.anthropic import AnthropicModel
from docuchat.models.base import ModelRequest, ModelResponse, StreamItem, UserMessage
from docuchat.models.http import RetryPolicy, retry_after_seconds
from docuchat.models.http_pool import HTTPPool
from docuchat.models.openai import OpenAIChatModel

from .conftest import RecordedSleeps, Reply, ScriptedServer, completion

REQUEST = ModelRequest(system="Be brief.", messages=[UserMessage("Hi")])


async def _drain_into(received: list[StreamItem], stream: AsyncIterator[StreamItem]) -> None:
    async for item in stream:
        received.append(item)


async def test_transient_errors_are_retried_with_exponential_backoff(
    server: ScriptedServer, openai_model: OpenAIChatModel, sleeps: RecordedSleeps
) -> None:
    server.queue(
        Reply.json({"error": {"message": "busy"}}, status=503),
        Reply.json({"error": {"message": "slow down"}}, status=429),
        Reply.json({"error": {"message": "gateway"}}, status=502),
        Reply.json(completion("finally")),
    )
    response = await openai_model.complete(REQUEST)
    assert response.text == "finally"
    assert len(server.requests) == 4
    assert sleeps.waits == [0.5, 1.0, 2.0]  # jitter pinned to its ceiling in this test


async def test_retries_are_bounded_and_the_last_error_carries_the_message(
    server: ScriptedServer, openai_model: OpenAIChatModel, sleeps: RecordedSleeps
) -> None:
    server.queue(*[Reply.json({"error": {"message": "overloaded"}}, status=500)] * 5)
    with pytest.raises(ModelHTTPError) as raised:
        await openai_model.complete(REQUEST)
    assert (raised.value.status, raised.value.message) == (500, "overloaded")
    assert len(server.requests) == 4  # one attempt and three retries
    assert len(server.replies) == 1


async def test_backoff_is_capped_by_max_delay(
    server: ScriptedServer, sleeps: RecordedSleeps
) -> None:
    retry = RetryPolicy(
        max_retries=4, base_delay=1.0, max_delay=3.0, sleep=sleeps, jitter=lambda ceiling: ceiling
    )
    model = OpenAIChatModel("m", base_url=server.url, retry=retry)
    server.queue(*[Reply(status=503)] * 4, Reply.json(completion()))
    await model.complete(REQUEST)
    assert sleeps.waits == [1.0, 2.0, 3.0, 3.0]


def test_full_jitter_draws_between_zero_and_the_ceiling() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=8.0)
    error = ModelHTTPError(503, "busy")
    waits = [policy.delay_before_retry(error, attempt=2) for _ in range(300)]
    assert all(w is not None and 0.0 <= w <= 4.0 for w in waits)
    assert len(set(waits)) > 250  # random, not a fixed schedule


@pytest.mark.parametrize(
    ("headers", "wait"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": "0.25"}, 0.25),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
    ],
)
async def test_retry_after_is_honoured(
    server: ScriptedServer,
    openai_model: OpenAIChatModel,
    sleeps: RecordedSleeps,
    headers: dict[str, str],
    wait: float,
) -> None:
    server.queue(Reply(status=429, headers=headers), Reply.json(completion()))
    await openai_model.complete(REQUEST)
    assert sleeps.waits == [wait]


async def test_retry_after_as_an_http_date(
    server: ScriptedServer, openai_model: OpenAIChatModel, sleeps: RecordedSleeps
) -> None:
    when = email.utils.format_datetime(datetime.now(UTC) + timedelta(seconds=20), usegmt=True)
    server.queue(Reply(status=503, headers={"retry-after": when}), Reply.json(completion()))
    await openai_model.complete(REQUEST)
    assert len(sleeps.waits) == 1
    assert 17.0 < sleeps.waits[0] <= 20.0


def test_retry_after_parsing_edge_cases() -> None:
    now = datetime(2025, 1, 1, tzinfo=UTC)
    assert retry_after_seconds({}) is None
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({"retry-after": "-3"}) == 0.0
    assert retry_after_seconds({"retry-after": "Wed, 01 Jan 2025 00:00:30 GMT"}, now) == 30.0
    assert retry_after_seconds({"retry-after": "Tue, 31 Dec 2024 00:00:00 GMT"}, now) == 0.0
    assert retry_after_seconds({"retry-after-ms": "x", "retry-after": "2"}) == 2.0


async def test_a_wait_longer_than_max_delay_ends_the_retries(
    server: ScriptedServer, openai_model: OpenAIChatModel, sleeps: RecordedSleeps
) -> None:
    server.queue(Reply.json({"error": {"message": "quota"}}, status=429, **{"retry-after": "3600"}))
    with pytest.raises(ModelHTTPError) as raised:
        await openai_model.complete(REQUEST)
    assert raised.value.retry_after == 3600.0
    assert raised.value.message == "quota"
    assert sleeps.waits == []


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply.json({"error": {"message": "Invalid model", "type": "x"}}, 400), "Invalid model"),
        (Reply.json({"error": "Unauthorized"}, 401), "Unauthorized"),
        (Reply(404, b"<html>Not Found</html>", {"content-type": "text/html"}), "<html>Not Found"),
        (Reply(422, b""), "Unprocessable Entity"),
    ],
)
async def test_client_errors_are_not_retried_and_keep_the_provider_message(
    server: ScriptedServer,
    openai_model: OpenAIChatModel,
    sleeps: RecordedSleeps,
    reply: Reply,
    message: str,
) -> None:
    server.queue(reply)
    with pytest.raises(ModelHTTPError) as raised:
        await openai_model.complete(REQUEST)
    assert raised.value.status == reply.status
    assert raised.value.message.startswith(message)
    assert not raised.value.retryable
    assert sleeps.waits == []


async def test_anthropic_error_body(
    server: ScriptedServer, anthropic_model: AnthropicModel
) -> None:
    error = {"type": "error", "error": {"type": "invalid_request_error", "message": "bad tools"}}
    server.queue(Reply.json(error, 400))
    with pytest.raises(ModelHTTPError, match="bad tools") as raised:
        await anthropic_model.complete(REQUEST)
    assert raised.value.status == 400


async def test_openrouter_upstream_reason_is_part_of_the_message(
    server: ScriptedServer, openai_model: OpenAIChatModel
) -> None:
    error = {"error": {"code": 402, "message": "Provider error", "metadata": {"raw": "no credit"}}}
    server.queue(Reply.json(error, 402))
    with pytest.raises(ModelHTTPError) as raised:
        await openai_model.complete(REQUEST)
    assert raised.value.message == "Provider error: no credit"


async def test_a_dropped_connection_is_retried(
    server: ScriptedServer, openai_model: OpenAIChatModel, sleeps: RecordedSleeps
) -> None:
    server.queue(Reply(drop=True), Reply(drop=True), Reply.json(completion("back")))
    assert (await openai_model.complete(REQUEST)).text == "back"
    assert len(sleeps.waits) == 2


async def test_connections_that_keep_dropping_raise_a_connection_error(
    server: ScriptedServer, openai_model: OpenAIChatModel
) -> None:
    server.queue(*[Reply(drop=True)] * 4)
    with pytest.raises(ModelConnectionError, match=r"connection to the model server at .* failed"):
        await openai_model.complete(REQUEST)
    assert len(server.requests) == 4


async def test_a_timeout_is_retried(server: ScriptedServer, sleeps: RecordedSleeps) -> None:
    model = OpenAIChatModel(
        "m", base_url=server.url, timeout=0.5, retry=RetryPolicy(sleep=sleeps, max_retries=1)
    )
    late = dataclasses.replace(Reply.json(completion("late")), delay=1.2)
    server.queue(late, Reply.json(completion("on time")))
    assert (await model.complete(REQUEST)).text == "on time"
    assert len(sleeps.waits) == 1


async def test_timeouts_end_in_a_connection_error(server: ScriptedServer) -> None:
    model = OpenAIChatModel("m", base_url=server.url, timeout=0.1, retry=RetryPolicy(max_retries=0))
    server.queue(dataclasses.replace(Reply.json(completion()), delay=0.4))
    with pytest.raises(ModelConnectionError, match="did not answer in time") as raised:
        await model.complete(REQUEST)
    assert raised.value.url == server.url.rstrip("/")


async def test_a_refused_connection_is_a_connection_error(sleeps: RecordedSleeps) -> None:
    with socket.socket() as probe:  # a port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = OpenAIChatModel(
        "m", base_url=f"http://127.0.0.1:{port}", retry=RetryPolicy(max_retries=2, sleep=sleeps)
    )
    with pytest.raises(ModelConnectionError):
        await model.complete(REQUEST)
    assert len(sleeps.waits) == 2


@pytest.mark.parametrize(
    "reply",
    [
        Reply(200, b"<html>proxy login</html>", {"content-type": "text/html"}),
        Reply.json({"object": "list", "data": []}),
        Reply.json({"choices": "none"}),
        Reply(200, b"not gzip", {"content-type": "application/json", "content-encoding": "gzip"}),
    ],
)
async def test_a_success_we_cannot_understand_is_a_response_error_not_retried(
    server: ScriptedServer, openai_model: OpenAIChatModel, reply: Reply
) -> None:
    server.queue(reply)
    with pytest.raises(ModelResponseError):
        await openai_model.complete(REQUEST)
    assert len(server.requests) == 1


async def test_a_stream_is_retried_until_it_starts(
    server: ScriptedServer, openai_model: OpenAIChatModel
) -> None:
    chunk = '{"choices": [{"index": 0, "delta": {"content": "hi"}}]}'
    server.queue(Reply(status=503), Reply.sse([f"data: {chunk}", "data: [DONE]"]))
    items = [item async for item in openai_model.stream(REQUEST)]
    assert isinstance(items[-1], ModelResponse)
    assert items[-1].text == "hi"
    assert len(server.requests) == 2


async def test_a_stream_cut_midway_is_a_connection_error_and_not_replayed(
    server: ScriptedServer, openai_model: OpenAIChatModel
) -> None:
    chunk = '{"choices": [{"index": 0, "delta": {"content": "partial "}}]}'
    server.queue(dataclasses.replace(Reply.sse([f"data: {chunk}"]), truncate=True))
    received: list[StreamItem] = []
    with pytest.raises(ModelConnectionError):
        await _drain_into(received, openai_model.stream(REQUEST))
    assert [getattr(item, "text", None) for item in received] == ["partial "]
    assert len(server.requests) == 1


@pytest.mark.parametrize("url", ["ftp://example.com/v1", "api.openai.com/v1", "http://"])
def test_a_malformed_base_url_is_a_config_error(url: str) -> None:
    with pytest.raises(ConfigError, match="base URL"):
        OpenAIChatModel("m", api_key="k", base_url=url)


async def test_an_injected_pool_is_used_and_left_open(server: ScriptedServer) -> None:
    pool = HTTPPool(headers={"x-trace": "abc"})
    model = OpenAIChatModel("m", base_url=server.url, http_client=pool)
    server.queue(Reply.json(completion("one")), Reply.json(completion("two")))
    assert (await model.complete(REQUEST)).text == "one"
    assert (await model.complete(REQUEST)).text == "two"
    assert pool.is_open
    await pool.aclose()
    assert [r.headers["x-trace"] for r in server.requests] == ["abc", "abc"]


async def test_a_closed_pool_opens_a_fresh_session_on_its_next_use(server: ScriptedServer) -> None:
    pool = HTTPPool()
    model = OpenAIChatModel("m", base_url=server.url, http_client=pool)
    server.queue(Reply.json(completion("before")), Reply.json(completion("after")))
    assert (await model.complete(REQUEST)).text == "before"
    await pool.aclose()  # as a server's lifespan ends
    assert not pool.is_open
    assert (await model.complete(REQUEST)).text == "after"
    assert pool.is_open
    await pool.aclose()


async def test_the_proxy_of_the_environment_is_used(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", server.url)  # the scripted server plays the proxy
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    model = OpenAIChatModel("m", base_url="http://models.example.test/v1")
    server.queue(Reply.json(completion("via the proxy")))
    assert (await model.complete(REQUEST)).text == "via the proxy"
    assert server.requests[0].path == "http://models.example.test/v1/chat/completions"


async def test_no_proxy_bypasses_the_proxy(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    model = OpenAIChatModel("m", base_url=server.url)
    server.queue(Reply.json(completion("direct")))
    assert (await model.complete(REQUEST)).text == "direct"
    assert server.requests[0].path == "/chat/completions"
