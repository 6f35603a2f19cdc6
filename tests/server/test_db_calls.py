"""Database calls of a request run on the event loop, except when another writer holds the
database: then they wait on a worker thread and every other request goes on being served."""

from __future__ import annotations

import asyncio
import sqlite3

import httpx

from docuchat.server import ServerSettings

from .conftest import Keys, auth

QUESTION = {"question": "What is the market value of the Highlands estate?", "stream": False}


async def test_an_ask_waits_for_an_upload_holding_the_write_lock_without_stalling_the_server(
    client: httpx.AsyncClient, keys: Keys, settings: ServerSettings
) -> None:
    writer = sqlite3.connect(settings.db_path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # as the upload worker storing a large document
    try:
        ask = asyncio.create_task(client.post("/api/ask", headers=auth(keys.alice), json=QUESTION))
        await asyncio.sleep(0.2)
        health = await asyncio.wait_for(client.get("/health"), 2)
        documents = await asyncio.wait_for(
            client.get("/api/documents", headers=auth(keys.alice)), 2
        )
        assert (health.status_code, documents.status_code) == (200, 200)
        assert not ask.done()  # its conversation is still waiting to be written
    finally:
        writer.execute("COMMIT")
        writer.close()
    answered = await asyncio.wait_for(ask, 10)
    assert answered.status_code == 200
    listed = await client.get("/api/conversations", headers=auth(keys.alice))
    saved = [(c["id"], c["turns"]) for c in listed.json()["conversations"]]
    assert saved == [(answered.json()["conversation_id"], 1)]
