"""A real server (uvicorn on loopback) in front of a real model server that misbehaves: every
failure is an HTTP status and an OpenAI error object on /v1 (streamed: an error, then
[DONE]), no request outlives the answer timeout, and what a model writes (lone surrogates,
a 4,301-digit citation marker) never breaks a response."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from docuchat.config import ResearchConfig
from docuchat.models.scripted import ScriptedModel, reply
from docuchat.server import ServerSettings, create_app
from docuchat.server.ingestion import Upload, ingest_upload
from model_servers import Answer, Behaviour, CallTool, Fail, Hang, ModelServer

from .conftest import ALICE_FILES, Keys, LiveServer, auth, services_of, sse_events

MODEL_TIMEOUT, ANSWER_TIMEOUT = 1.0, 3.0
QUESTION = "What is the market value of the Highlands estate?"
UNMATCHED = "Xylophones or zeppelins?"
"""Matches nothing: no passage is read, so a failing model leaves no answer to quote."""


@pytest.fixture
def serve(
    settings: ServerSettings, live_keys: Keys, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., str]]:
    """Start a model server with a behaviour, and docuchat in front of it; the docuchat URL."""
    stack: list[tuple[ModelServer, LiveServer]] = []

    def start(behaviour: Callable[[dict[str, Any]], Behaviour]) -> str:
        model = ModelServer(behaviour)
        monkeypatch.setenv("OPENAI_BASE_URL", model.url)
        app = create_app(
            settings.model_copy(
                update={
                    "model": "openai:test",
                    "model_timeout": MODEL_TIMEOUT,
                    "research": ResearchConfig(timeout=ANSWER_TIMEOUT),
                }
            )
        )
        for name, text in ALICE_FILES.items():
            ingest_upload(
                services_of(app).store, "alice", Upload(name, text.encode()), max_bytes=10_000
            )
        server = LiveServer(app)
        stack.append((model, server))
        return server.__enter__()

    yield start
    for model, server in reversed(stack):
        server.__exit__()
        model.close()


def completion(
    url: str, key: str, *, stream: bool = False, question: str = QUESTION, **extra: Any
) -> httpx.Response:
    body = {"model": "docuchat", "messages": [{"role": "user", "content": question}], **extra}
    return httpx.post(
        f"{url}/v1/chat/completions",
        json={**body, "stream": stream},
        headers=auth(key),
        timeout=30,
    )


FAILURES: dict[str, tuple[Callable[[dict[str, Any]], Behaviour], int, str, str]] = {
    "model error": (lambda _b: Fail(400, "no such model"), 502, "model_error", "HTTP 400"),
    "endless invalid calls": (
        lambda _b: CallTool("search_docs", '{"quer": 1}'),
        502,
        "model_error",
        "max_iterations",
    ),
    "silence": (lambda _b: Hang(), 504, "timeout", "did not answer within 1s"),
}


@pytest.mark.parametrize("failure", FAILURES)
def test_v1_says_a_failure_with_a_status_and_an_openai_error_whole_and_streamed(
    serve: Callable[..., str], live_keys: Keys, failure: str
) -> None:
    behaviour, status, code, said = FAILURES[failure]
    url = serve(behaviour)
    started = time.monotonic()
    response = completion(url, live_keys.alice, question=UNMATCHED)
    assert time.monotonic() - started < ANSWER_TIMEOUT + 1.5
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("server_error", code)
    assert error["message"].startswith("no answer (") and said in error["message"]

    streamed = completion(url, live_keys.alice, stream=True, question=UNMATCHED)
    assert streamed.status_code == 200
    *chunks, error_event, done = sse_events(streamed.text)
    assert done == "[DONE]"
    assert error_event["error"]["code"] == code and said in error_event["error"]["message"]
    assert all("error" not in c for c in chunks)

    client = openai.OpenAI(base_url=f"{url}/v1", api_key=live_keys.alice, max_retries=0)
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": UNMATCHED}]
    with pytest.raises(openai.APIStatusError) as raised:
        client.chat.completions.create(model="docuchat", messages=messages)
    assert raised.value.status_code == status
    with pytest.raises(openai.APIError, match=said):
        list(client.chat.completions.create(model="docuchat", messages=messages, stream=True))


def test_api_ask_with_a_silent_model_ends_within_the_answer_timeout(
    serve: Callable[..., str], live_keys: Keys
) -> None:
    url = serve(lambda _b: Hang())
    started = time.monotonic()
    response = httpx.post(
        f"{url}/api/ask", json={"question": QUESTION}, headers=auth(live_keys.alice), timeout=30
    )
    assert time.monotonic() - started < ANSWER_TIMEOUT + 1.5
    final, done = sse_events(response.text)[-2:]
    assert done == "[DONE]"
    assert (final["type"], final["outcome"], final["answer"]) == ("final", "timeout", "")


def test_lone_surrogates_from_a_model_become_replacement_characters(
    serve: Callable[..., str], live_keys: Keys
) -> None:
    url = serve(lambda _b: Answer("The value is \\ud800 high \\udfff.", escaped=True))
    whole = completion(url, live_keys.alice)
    assert whole.status_code == 200
    assert whole.json()["choices"][0]["message"]["content"] == "The value is \ufffd high \ufffd."
    streamed = completion(url, live_keys.alice, stream=True)
    assert sse_events(streamed.text)[-1] == "[DONE]"
    asked = httpx.post(f"{url}/api/ask", json={"question": QUESTION}, headers=auth(live_keys.alice))
    final = sse_events(asked.text)[-2]
    assert final["answer"] == "The value is \ufffd high \ufffd."


@pytest.mark.parametrize("stream", [True, False])
def test_a_huge_citation_marker_from_a_model_is_text(
    serve: Callable[..., str], live_keys: Keys, stream: bool
) -> None:
    marker = "[" + "7" * 4_301 + "]"
    url = serve(lambda _b: Answer(f"The estate is worth a lot {marker}."))
    response = httpx.post(
        f"{url}/api/ask",
        json={"question": QUESTION, "stream": stream},
        headers=auth(live_keys.alice),
    )
    assert response.status_code == 200
    final = sse_events(response.text)[-2] if stream else response.json()
    assert marker in final["answer"] and final["removed_citations"] == []
    v1 = completion(url, live_keys.alice)
    assert marker in v1.json()["choices"][0]["message"]["content"]


def test_a_model_that_reports_absurd_usage_is_a_typed_model_error(
    serve: Callable[..., str], live_keys: Keys
) -> None:
    """Python refuses to convert more than 4,300 digits; the run still ends typed."""
    usage = json.dumps({"prompt_tokens": "9" * 5_000, "completion_tokens": 1})
    url = serve(lambda _b: Answer("The estate is worth a lot.", usage=usage))
    response = completion(url, live_keys.alice, question=UNMATCHED)
    assert response.status_code == 502
    assert "model_error" in response.json()["error"]["message"]


@pytest.mark.parametrize("path", ["/api/ask", "/v1/chat/completions"])
def test_a_stream_whose_answer_cannot_be_written_still_ends_in_order(
    settings: ServerSettings, live_keys: Keys, path: str
) -> None:
    """Text no UTF-8 can hold (an in-process model is not decoded from JSON) ends the stream
    with an error event and [DONE], not a cut connection."""
    app = create_app(settings, model=ScriptedModel(lambda _r: reply("Worth \ud800 a lot.")))
    body = (
        {"question": QUESTION}
        if path == "/api/ask"
        else {
            "model": "docuchat",
            "messages": [{"role": "user", "content": QUESTION}],
        }
    )
    with LiveServer(app) as url:
        response = httpx.post(
            url + path, json={**body, "stream": True}, headers=auth(live_keys.alice), timeout=30
        )
    *_, error, done = sse_events(response.text)
    assert done == "[DONE]"
    message = error["message"] if path == "/api/ask" else error["error"]["message"]
    assert "an event could not be written" in message
