"""``GET /health``: which process answered, and whether the database and the queue answer."""

from __future__ import annotations

import os
import time

import httpx
import psycopg
from fastapi import FastAPI

from docuchat.models.scripted import ScriptedModel
from docuchat.server import ServerSettings, create_app

from .conftest import services_of


async def test_health_names_the_process_and_its_database(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    response = await client.get("/health")
    assert response.status_code == 200
    health = response.json()
    assert health["status"] == "ok"
    assert (health["pid"], health["process"]) == (os.getpid(), services_of(app).process_id)
    assert (health["database"], health["processes"]) == (True, 1)
    assert health["queue"] == {
        "reachable": True,
        "queued": 0,
        "running": 0,
        "ingesting_processes": 1,
        "ingests_here": True,
    }


async def test_health_is_503_while_the_database_does_not_answer(
    postgres_url: str, settings: ServerSettings, model: ScriptedModel
) -> None:
    app = create_app(settings.model_copy(update={"db": postgres_url}), model=model)
    transport = httpx.ASGITransport(app)
    locker = psycopg.connect(postgres_url)
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            assert (await client.get("/health")).status_code == 200
            locker.execute("LOCK TABLE upload_jobs IN ACCESS EXCLUSIVE MODE")  # nothing answers
            started = time.monotonic()
            response = await client.get("/health")
            assert time.monotonic() - started < 5  # it gave up instead of hanging
            assert response.status_code == 503
            health = response.json()
            assert (health["status"], health["database"]) == ("unavailable", False)
            assert health["queue"]["reachable"] is False
            assert health["pid"] == os.getpid()
            locker.commit()
            assert (await client.get("/health")).json()["status"] == "ok"
    finally:
        locker.close()
        await services_of(app).aclose()
