"""A real app over a real SQLite file, two users, and a scripted model that does real research.

The scripted model searches, opens the best passage and answers with its last
line cited, so every run makes real tool calls against the store. Most tests
talk to the app in-process (httpx's ASGI transport); those that need a real
socket (disconnects, the openai client) use :class:`LiveServer`.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from docuchat.models.base import ModelRequest, ModelResponse, ToolResultsMessage, UserMessage
from docuchat.models.scripted import ScriptedModel, call, reply
from docuchat.server import ServerSettings, create_app
from docuchat.server.ingestion import Upload, ingest_upload
from docuchat.server.services import Services
from docuchat.server.serving import uvicorn_options
from model_servers import Hang, ModelServer

ALICE_FILES = {
    "valuation.md": "# Highlands Valuation Report\n\nThe market value of the Highlands estate "
    "was assessed at 2,300,000 pounds in February 2024.",
    "lease.txt": "Cottage Lease\n\nThe annual rent of the east cottage of the Highlands estate is "
    "14,400 pounds, "
    "payable monthly in advance.",
}
BOB_FILES = {"plan.md": "# Project Falcon\n\nThe launch date of Project Falcon is 9 September."}
NO_ANSWER = "The documents do not say."


def research_policy(request: ModelRequest) -> ModelResponse:
    """Search for the question, open the top hit, answer with the passage's last line cited.

    Without tools (pipeline mode) it answers from the first passage opened.
    """
    messages = list(request.messages)
    asked = max(i for i, m in enumerate(messages) if isinstance(m, UserMessage))
    results = [r for m in messages[asked:] if isinstance(m, ToolResultsMessage) for r in m.results]
    if request.tools and not results:
        question = messages[asked]
        assert isinstance(question, UserMessage)
        return call("search_docs", query=question.content)
    if request.tools and results[-1].name == "search_docs":
        hits = json.loads(results[-1].content)["hits"]
        if not hits:
            return reply(NO_ANSWER)
        return call("open_citation", docId=hits[0]["docId"], chunkId=hits[0]["chunkId"])
    opened = [
        json.loads(r.content)
        for m in messages
        if isinstance(m, ToolResultsMessage)
        for r in m.results
        if r.name == "open_citation" and not r.is_error
    ]
    if not opened:
        return reply(NO_ANSWER)
    passage = opened[0]
    return reply(f"{passage['text'].strip().splitlines()[-1]} [{passage['citation']}]")


@pytest.fixture
def model() -> ScriptedModel:
    return ScriptedModel(research_policy)


@pytest.fixture
def settings(tmp_path: Path) -> ServerSettings:
    return ServerSettings(home=tmp_path, db=str(tmp_path / "docuchat.db"), embedder="none")


@pytest.fixture
async def app(settings: ServerSettings, model: ScriptedModel) -> AsyncIterator[FastAPI]:
    app = create_app(settings, model=model)
    yield app
    await services_of(app).aclose()


def services_of(app: FastAPI) -> Services:
    services: Services = app.state.services
    return services


@dataclass(frozen=True)
class Keys:
    alice: str
    bob: str


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture
def keys(app: FastAPI) -> Keys:
    accounts = services_of(app).accounts
    return Keys(alice=accounts.add_user("alice")[1], bob=accounts.add_user("bob")[1])


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


async def upload(client: httpx.AsyncClient, key: str, files: dict[str, str | bytes]) -> str:
    """Upload files; return the job id."""
    parts = [("files", (name, data)) for name, data in files.items()]
    response = await client.post("/api/documents", headers=auth(key), files=parts)
    assert response.status_code == 202, response.text
    job_id: str = response.json()["job_id"]
    return job_id


async def finished_job(client: httpx.AsyncClient, key: str, job_id: str) -> dict[str, Any]:
    """The job once it is done or failed."""
    for _ in range(200):
        job: dict[str, Any] = (await client.get(f"/api/jobs/{job_id}", headers=auth(key))).json()
        if job["status"] in ("done", "failed"):
            return job
        await asyncio.sleep(0.02)
    raise AssertionError(f"job {job_id} did not finish: {job}")


@pytest.fixture
async def documents(client: httpx.AsyncClient, keys: Keys) -> dict[str, list[dict[str, Any]]]:
    """Alice's and Bob's files, uploaded and ingested: each user's job documents."""
    found = {}
    for key, files in ((keys.alice, ALICE_FILES), (keys.bob, BOB_FILES)):
        job = await finished_job(client, key, await upload(client, key, dict(files)))
        assert job["status"] == "done", job
        found[key] = job["documents"]
    return {"alice": found[keys.alice], "bob": found[keys.bob]}


def sse_events(body: str) -> list[Any]:
    """The ``data:`` payloads of a server-sent event stream; ``[DONE]`` stays a string."""
    payloads = [line[len("data: ") :] for line in body.split("\n\n") if line.startswith("data: ")]
    return [p if p == "[DONE]" else json.loads(p) for p in payloads]


# -- a real server on a socket --------------------------------------------------------------


class LiveServer:
    """The app served by uvicorn on a free port of 127.0.0.1, on a thread of its own, as
    ``docuchat serve`` serves it."""

    def __init__(self, app: FastAPI) -> None:
        options = uvicorn_options(services_of(app).settings)
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", **options)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    def __enter__(self) -> str:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        port = self._server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(10)


@pytest.fixture
def server_url(settings: ServerSettings, model: ScriptedModel) -> Iterator[str]:
    """The app with Alice's and Bob's files, served on a real socket."""
    app = create_app(settings, model=model)
    store = services_of(app).store
    for owner, files in (("alice", ALICE_FILES), ("bob", BOB_FILES)):
        for name, text in files.items():
            ingest_upload(store, owner, Upload(name, text.encode()), max_bytes=10_000)
    with LiveServer(app) as url:
        yield url


@pytest.fixture
def live_keys(settings: ServerSettings) -> Keys:
    """Alice and Bob in the settings' database, for an app built by the test itself."""
    from docuchat.store.accounts import open_accounts

    accounts = open_accounts(settings.db_path)
    try:
        return Keys(alice=accounts.add_user("alice")[1], bob=accounts.add_user("bob")[1])
    finally:
        accounts.close()


@pytest.fixture
def hanging_model() -> Iterator[ModelServer]:
    """An OpenAI-compatible server that never answers, and sees its clients hang up."""
    server = ModelServer(lambda _body: Hang())
    yield server
    server.close()
