"""A turn answered with the pipeline because its model is below ``min_model_for_agent`` keeps
why: a reopened conversation (``GET /api/conversations/{id}``) says so again, on SQLite and
on PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from docuchat.config import ResearchConfig
from docuchat.server import ServerSettings

from .conftest import Keys, auth, services_of
from .test_research_request import ask


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> ServerSettings:
    """The server's settings on a SQLite file, or on a database of the session's PostgreSQL."""
    db = (
        str(tmp_path / "docuchat.db")
        if request.param == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    return ServerSettings(home=tmp_path, db=db, embedder="none")


async def kept_turn(client: httpx.AsyncClient, key: str, conversation_id: str) -> Any:
    response = await client.get(f"/api/conversations/{conversation_id}", headers=auth(key))
    assert response.status_code == 200, response.text
    [turn] = response.json()["turns"]
    return turn


async def test_a_reopened_conversation_keeps_why_the_pipeline_answered(
    app: FastAPI, client: httpx.AsyncClient, keys: Keys
) -> None:
    services = services_of(app)
    research = ResearchConfig(
        models_allowed=("scripted", services.settings.model), min_model_for_agent="offline"
    )
    services.settings = services.settings.model_copy(update={"research": research})

    weak = await ask(client, keys.alice, model="scripted")
    default = await ask(client, keys.alice)

    assert weak["mode"] == "pipeline"
    assert weak["mode_reason"].startswith("scripted is below min_model_for_agent (offline)")
    kept = await kept_turn(client, keys.alice, weak["conversation_id"])
    assert (kept["answer"], kept["mode_reason"]) == (weak["answer"], weak["mode_reason"])
    assert default["mode"] == "agent"
    assert (await kept_turn(client, keys.alice, default["conversation_id"]))["mode_reason"] == ""
