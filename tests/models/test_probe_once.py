"""A cold server's concurrent first questions share one probe of what the server is.

Over a real local server that speaks chat completions but leaves the probe's ``GET``
requests unanswered, or drops their connections. Each first question probing on its
own multiplied the requests such a server got by the number of questions (a mock that
crashed on every ``GET`` then logged until its output pipe filled, and stopped).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator

import aiohttp
import pytest

from docuchat.models import servers
from docuchat.models.base import ModelRequest, ModelResponse, UserMessage
from docuchat.models.http import HTTPPool, RetryPolicy
from docuchat.models.openai import OpenAIChatModel
from docuchat.models.window import UNKNOWN_WINDOW, ContextWindow, context_window_of
from model_servers import Answer, Drop, Hang, ModelServer

QUESTIONS = 8
PROBE_SECONDS = 0.5
PROBED = ["/api/version", "/openapi.json", "/props", "/v1/models"]
REQUEST = ModelRequest("Answer.", [UserMessage("Leave?")])


@pytest.fixture(autouse=True)
def short_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(servers, "PROBE_TIMEOUT", aiohttp.ClientTimeout(total=PROBE_SECONDS))


@pytest.fixture(params=[Hang(), Drop()], ids=["unanswered", "dropped"])
def deaf_server(request: pytest.FixtureRequest) -> Iterator[ModelServer]:
    server = ModelServer(lambda _body: Answer("25 days."), get=request.param)
    yield server
    server.close()


async def _ask(model: OpenAIChatModel) -> tuple[ContextWindow | None, ModelResponse]:
    """What a research question does first: the window, then a streamed model call."""
    window = await context_window_of(model)
    async for item in model.stream(REQUEST):
        if isinstance(item, ModelResponse):
            return window, item
    raise AssertionError("the stream ended without a response")


async def _ask_together(model: OpenAIChatModel) -> float:
    started = time.monotonic()
    asked = await asyncio.wait_for(asyncio.gather(*(_ask(model) for _ in range(QUESTIONS))), 10)
    assert [(window, response.text) for window, response in asked] == [
        (UNKNOWN_WINDOW, "25 days.")
    ] * QUESTIONS
    return time.monotonic() - started


def _probes(server: ModelServer) -> Counter[str]:
    return Counter(request.path for request in server.received if request.method == "GET")


async def test_concurrent_first_questions_share_one_probe(deaf_server: ModelServer) -> None:
    pool = HTTPPool()
    model = OpenAIChatModel(
        "mock", base_url=deaf_server.url, http_client=pool, retry=RetryPolicy(max_retries=0)
    )
    try:
        first = await _ask_together(model)
        probes = _probes(deaf_server)
        again = await _ask_together(model)
    finally:
        await pool.aclose()
    # aiohttp sends a GET once more when its connection drops before an answer.
    assert sorted(probes) == PROBED
    assert max(probes.values()) == (2 if isinstance(deaf_server.get, Drop) else 1)
    assert _probes(deaf_server) == probes  # the later questions probe nothing
    assert first < PROBE_SECONDS + 1.5 and again < 1.5
    posts = [request for request in deaf_server.received if request.method == "POST"]
    assert len(posts) == 2 * QUESTIONS  # one model call a question, none lost to the probe
    probed_on = {request.connection for request in deaf_server.received if request.method == "GET"}
    assert not probed_on & {post.connection for post in posts}


def test_a_probe_cut_short_with_its_loop_is_asked_again_in_the_next() -> None:
    """An adapter outlives an event loop (tests run one each): a probe the loop's end
    cancelled is asked again, once, by the next loop's questions."""
    server = ModelServer(lambda _body: Answer("25 days."), get=Hang())
    model = OpenAIChatModel("mock", base_url=server.url, retry=RetryPolicy(max_retries=0))

    async def leave_while_probing() -> None:
        asking = asyncio.ensure_future(model.context_window())
        assert await asyncio.to_thread(server.get_arrived.wait, 5)
        assert not asking.done()  # the loop ends now, the probe unanswered

    try:
        asyncio.run(leave_while_probing())
        asyncio.run(_ask_together(model))
    finally:
        server.close()
    assert sorted(_probes(server)) == PROBED
    assert set(_probes(server).values()) == {2}  # the cut probe and the next loop's one
