"""The whole server on PostgreSQL: documents, accounts, conversations and jobs in one database.

The same app and scripted research model as the other server tests, with
``db`` a ``postgresql://`` URL: every accounts call the routes make on the
event loop must move to a worker thread (a ``WouldWait`` that escaped would be
a 500 here). ``docuchat users`` works on the same database.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from click.testing import CliRunner
from fastapi import FastAPI

from docuchat.cli.main import cli
from docuchat.models.base import AssistantMessage, UserMessage
from docuchat.models.scripted import ScriptedModel
from docuchat.server import ServerSettings
from docuchat.store.accounts import open_accounts
from docuchat.store.postgres import PostgresStore
from docuchat.store.postgres_accounts import PostgresAccounts

from .conftest import NO_ANSWER, Keys, auth, finished_job, services_of, sse_events, upload

VALUE = "What is the market value of the Highlands estate?"
RENT = "What is the annual rent of the east cottage?"


@pytest.fixture
def settings(tmp_path: Path, postgres_url: str) -> ServerSettings:
    return ServerSettings(home=tmp_path, db=postgres_url, embedder="none")


async def ask(client: httpx.AsyncClient, key: str, question: str, **body: Any) -> list[Any]:
    """The events of a streamed answer."""
    response = await client.post("/api/ask", headers=auth(key), json={"question": question, **body})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    return sse_events(response.text)


async def test_two_users_upload_ask_and_follow_up_on_postgres(
    app: FastAPI,
    client: httpx.AsyncClient,
    keys: Keys,
    documents: dict[str, list[dict[str, Any]]],
    model: ScriptedModel,
) -> None:
    services = services_of(app)
    assert isinstance(services.store, PostgresStore)
    assert isinstance(services.accounts, PostgresAccounts)
    assert [d["title"] for d in documents["alice"]] == [
        "Highlands Valuation Report",
        "lease",
    ]

    run, *_, final, done = await ask(client, keys.alice, VALUE)
    assert (run["type"], final["type"], done) == ("run", "final", "[DONE]")
    assert final["answer"].startswith("The market value of the Highlands estate was assessed")
    assert final["citations"][0]["verified"] is True
    conversation_id = final["conversation_id"]

    calls_before = len(model.requests)
    *_, follow_up, _ = await ask(client, keys.alice, RENT, conversation_id=conversation_id)
    assert follow_up["conversation_id"] == conversation_id
    assert "14,400 pounds" in follow_up["answer"]
    assert list(model.requests[calls_before].messages[:3]) == [
        UserMessage(VALUE),
        AssistantMessage(final["answer"]),
        UserMessage(RENT),
    ]
    stored = (
        await client.get(f"/api/conversations/{conversation_id}", headers=auth(keys.alice))
    ).json()
    assert [(t["question"], t["answer"]) for t in stored["turns"]] == [
        (VALUE, final["answer"]),
        (RENT, follow_up["answer"]),
    ]
    assert stored["turns"][0]["citations"] == final["citations"]

    # Bob sees none of Alice's things, and his research finds only his own documents.
    job_id = await upload(client, keys.alice, {"notes.md": "# Notes\n\nNothing new."})
    assert (await finished_job(client, keys.alice, job_id))["status"] == "done"
    for path in (f"/api/conversations/{conversation_id}", f"/api/jobs/{job_id}"):
        assert (await client.get(path, headers=auth(keys.bob))).status_code == 404
    bobs_list = (await client.get("/api/conversations", headers=auth(keys.bob))).json()
    assert bobs_list == {"conversations": []}
    *_, bobs, _ = await ask(client, keys.bob, VALUE)
    assert bobs["answer"] == NO_ANSWER
    intruding = await client.post(
        "/api/ask",
        headers=auth(keys.bob),
        json={"question": RENT, "conversation_id": conversation_id, "stream": False},
    )
    assert intruding.status_code == 404
    assert len(services.accounts.get_conversation("alice", conversation_id).turns) == 2


async def test_a_key_lookup_waiting_for_postgres_does_not_stall_the_server(
    client: httpx.AsyncClient, keys: Keys, settings: ServerSettings
) -> None:
    locker = psycopg.connect(settings.db_path)
    locker.execute("LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE")  # every key lookup waits
    release = threading.Timer(3.0, locker.commit)  # far beyond /health's time, even loaded
    release.start()
    try:
        started = time.monotonic()
        listing = asyncio.create_task(client.get("/api/conversations", headers=auth(keys.alice)))
        await asyncio.sleep(0.2)
        health = await client.get("/health")
        # Served long before the lock is released: the loop never waited for PostgreSQL.
        assert (health.status_code, time.monotonic() - started < 2.0) == (200, True)
        assert not listing.done()  # its key lookup is still waiting, on a worker thread
    finally:
        release.join()
        locker.close()
    assert (await listing).json() == {"conversations": []}


def test_users_are_added_and_listed_in_postgres_from_the_command_line(postgres_url: str) -> None:
    runner = CliRunner()
    added = runner.invoke(cli, ["users", "add", "alice", "--db", postgres_url])
    assert added.exit_code == 0, added.output
    listed = runner.invoke(cli, ["users", "list", "--db", postgres_url, "--json"])
    assert [u["name"] for u in json.loads(listed.stdout)] == ["alice"]
    accounts = open_accounts(postgres_url)
    try:
        assert accounts.authenticate(added.stdout.strip()).name == "alice"
    finally:
        accounts.close()
