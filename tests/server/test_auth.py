"""Every route but /health and the web page needs a valid key."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from .conftest import Keys, auth

OPEN_PATHS = {"/health"}


def api_routes(app: FastAPI) -> list[tuple[str, str]]:
    """(method, path) of every operation in the OpenAPI schema."""
    paths = app.openapi()["paths"]
    return sorted((method.upper(), path) for path, ops in paths.items() for method in ops)


async def test_every_api_route_refuses_requests_without_a_valid_key(
    app: FastAPI, client: httpx.AsyncClient, keys: Keys
) -> None:
    routes = [(m, p) for m, p in api_routes(app) if p not in OPEN_PATHS]
    assert len(routes) >= 14
    tampered = keys.alice[:-2] + ("xx" if not keys.alice.endswith("xx") else "yy")
    for method, path in routes:
        url = path.replace("{", "").replace("}", "")  # any id: auth comes first
        for headers in ({}, auth(tampered), auth("not-a-key"), {"Authorization": "Basic abc"}):
            response = await client.request(method, url, headers=headers)
            assert response.status_code == 401, (method, path, headers, response.text)
            assert response.headers["www-authenticate"] == "Bearer"


async def test_openai_routes_answer_auth_errors_in_openai_format(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/models", headers=auth("wrong"))
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_api_key"


async def test_health_and_the_web_page_need_no_key(client: httpx.AsyncClient) -> None:
    health = await client.get("/health")
    assert health.status_code == 200
    assert health.json()["status"] == "ok"
    page = await client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "<html" in page.text.lower()


@pytest.mark.parametrize("who", ["alice", "bob"])
async def test_me_names_the_keys_owner(client: httpx.AsyncClient, keys: Keys, who: str) -> None:
    response = await client.get("/api/me", headers=auth(getattr(keys, who)))
    assert response.json() == {"id": who, "name": who}
