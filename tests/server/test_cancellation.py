"""Cancelling a run stops the model request in flight, whether the client leaves or asks.

The server runs under uvicorn on 127.0.0.1 and its model is ``openai:slow``,
an OpenAI-compatible server on 127.0.0.1 (``OPENAI_BASE_URL``) that never
answers: the model server itself sees its client hang up.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from docuchat.models.scripted import ScriptedModel
from docuchat.server import ServerSettings, create_app
from model_servers import ModelServer

from .conftest import Keys, LiveServer, auth, research_policy

QUESTION = {"question": "What is the market value of the Highlands estate?"}


@pytest.fixture
def server_url(
    settings: ServerSettings, hanging_model: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    monkeypatch.setenv("OPENAI_BASE_URL", hanging_model.url)
    app = create_app(settings.model_copy(update={"model": "openai:slow"}))
    with LiveServer(app) as url:
        yield url


def read_events(response: httpx.Response) -> Iterator[Any]:
    for line in response.iter_lines():
        if line.startswith("data: "):
            payload = line[len("data: ") :]
            yield payload if payload == "[DONE]" else json.loads(payload)


def turns(url: str, key: str, conversation_id: str) -> list[dict[str, Any]]:
    """The conversation's turns, once the cancelled one is saved."""
    for _ in range(100):
        found = httpx.get(f"{url}/api/conversations/{conversation_id}", headers=auth(key)).json()
        if found["turns"]:
            return list(found["turns"])
        time.sleep(0.05)
    raise AssertionError("the cancelled turn was not saved")


def test_a_client_that_goes_away_stops_the_model_request(
    server_url: str, live_keys: Keys, hanging_model: ModelServer
) -> None:
    with (
        httpx.Client(timeout=10) as client,
        client.stream(
            "POST", f"{server_url}/api/ask", headers=auth(live_keys.alice), json=QUESTION
        ) as response,
    ):
        events = read_events(response)  # (dropping it would close the response at once)
        run = next(events)
        assert hanging_model.request_arrived.wait(5)
    # The response is closed: the client has gone.
    assert hanging_model.client_gone.wait(5), "the model request was not aborted"
    [turn] = turns(server_url, live_keys.alice, run["conversation_id"])
    assert (turn["outcome"], turn["answer"]) == ("cancelled", "")


def test_a_cancel_call_stops_the_run_and_ends_its_stream(
    server_url: str, live_keys: Keys, hanging_model: ModelServer
) -> None:
    with (
        httpx.Client(timeout=10) as client,
        client.stream(
            "POST", f"{server_url}/api/ask", headers=auth(live_keys.alice), json=QUESTION
        ) as response,
    ):
        events = read_events(response)
        run = next(events)
        assert hanging_model.request_arrived.wait(5)

        foreign = client.post(
            f"{server_url}/api/runs/{run['run_id']}/cancel", headers=auth(live_keys.bob)
        )
        assert foreign.status_code == 404
        assert not hanging_model.client_gone.is_set()

        started = time.monotonic()
        cancel = client.post(
            f"{server_url}/api/runs/{run['run_id']}/cancel", headers=auth(live_keys.alice)
        )
        assert cancel.status_code == 202
        assert cancel.json() == {"cancelled": True}
        rest = list(events)
        assert time.monotonic() - started < 2

    final, done = rest[-2:]
    assert done == "[DONE]"
    assert (final["type"], final["outcome"], final["answer"]) == ("final", "cancelled", "")
    assert hanging_model.client_gone.wait(5), "the model request was not aborted"
    again = httpx.post(
        f"{server_url}/api/runs/{run['run_id']}/cancel", headers=auth(live_keys.alice)
    )
    assert again.status_code == 404


def test_a_client_that_stops_waiting_for_a_whole_answer_stops_the_run(
    server_url: str, live_keys: Keys, hanging_model: ModelServer
) -> None:
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(
            f"{server_url}/v1/chat/completions",
            headers=auth(live_keys.alice),
            json={"model": "docuchat", "messages": [{"role": "user", "content": "Value?"}]},
            timeout=httpx.Timeout(10, read=1.0),
        )
    assert hanging_model.request_arrived.is_set()
    assert hanging_model.client_gone.wait(5), "the model request was not aborted"


def test_runs_of_other_users_go_on_when_one_is_cancelled(
    settings: ServerSettings, live_keys: Keys
) -> None:
    app = create_app(settings, model=ScriptedModel(research_policy, delay=0.3))
    with LiveServer(app) as url, httpx.Client(timeout=10) as client:
        alice = client.stream(
            "POST", f"{url}/api/ask", headers=auth(live_keys.alice), json=QUESTION
        )
        bob = client.stream("POST", f"{url}/api/ask", headers=auth(live_keys.bob), json=QUESTION)
        with alice as alice_response, bob as bob_response:
            alice_events, bob_events = read_events(alice_response), read_events(bob_response)
            alice_run, _ = next(alice_events), next(bob_events)
            cancel = f"{url}/api/runs/{alice_run['run_id']}/cancel"
            assert client.post(cancel, headers=auth(live_keys.alice)).status_code == 202
            alice_final, bob_final = list(alice_events)[-2], list(bob_events)[-2]
    assert alice_final["outcome"] == "cancelled"
    assert bob_final["outcome"] == "answered"
