"""A key reaches only its owner's things: someone else's id is 404, exactly like an unknown id.

(Cancelling someone else's run is in test_cancellation.py: it needs a run in flight.)
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from .conftest import Keys, auth, sse_events, upload

UNKNOWN = "0123456789abcdef"


@pytest.fixture
async def alices(
    client: httpx.AsyncClient, keys: Keys, documents: dict[str, list[dict[str, Any]]]
) -> dict[str, str]:
    """Ids of Alice's document, upload job, passage and conversation."""
    asked = await client.post(
        "/api/ask",
        headers=auth(keys.alice),
        json={"question": "What is the market value of Highlands?", "stream": False},
    )
    result = asked.json()
    return {
        "doc_id": documents["alice"][0]["id"],
        "job_id": await upload(client, keys.alice, {"extra.md": "# Extra\n\nMore."}),
        "chunk_id": result["citations"][0]["chunk_id"],
        "conversation_id": result["conversation_id"],
    }


REQUESTS = [
    ("DELETE", "/api/documents/{doc_id}", None),
    ("GET", "/api/jobs/{job_id}", None),
    ("GET", "/api/passages/{chunk_id}", None),
    ("GET", "/api/conversations/{conversation_id}", None),
    ("DELETE", "/api/conversations/{conversation_id}", None),
    ("POST", "/api/ask", {"question": "And the rent?", "conversation_id": "{conversation_id}"}),
    ("POST", "/api/runs/{conversation_id}/cancel", None),
]


def _fill(template: Any, ids: dict[str, str]) -> Any:
    if isinstance(template, dict):
        return {k: _fill(v, ids) for k, v in template.items()}
    if isinstance(template, str):
        return template.format(**ids)
    return template


def _masked(text: str, ids: dict[str, str]) -> str:
    for value in ids.values():
        text = text.replace(value, "ID")
    return text


@pytest.mark.parametrize(("method", "path", "body"), REQUESTS)
async def test_someone_elses_id_is_not_found_like_an_unknown_one(
    client: httpx.AsyncClient,
    keys: Keys,
    alices: dict[str, str],
    method: str,
    path: str,
    body: dict[str, str] | None,
) -> None:
    unknown = dict.fromkeys(alices, UNKNOWN)
    foreign = await client.request(
        method, _fill(path, alices), headers=auth(keys.bob), json=_fill(body, alices)
    )
    missing = await client.request(
        method, _fill(path, unknown), headers=auth(keys.bob), json=_fill(body, unknown)
    )
    assert foreign.status_code == missing.status_code == 404
    assert _masked(foreign.json()["detail"], alices) == _masked(missing.json()["detail"], unknown)

    # Alice still has all of it.
    conversation = await client.get(
        f"/api/conversations/{alices['conversation_id']}", headers=auth(keys.alice)
    )
    assert len(conversation.json()["turns"]) == 1
    passage = await client.get(f"/api/passages/{alices['chunk_id']}", headers=auth(keys.alice))
    assert passage.status_code == 200
    assert (await client.get(f"/api/jobs/{alices['job_id']}", headers=auth(keys.alice))).is_success


async def test_lists_show_only_the_owners_things(
    client: httpx.AsyncClient, keys: Keys, alices: dict[str, str]
) -> None:
    bob_docs = (await client.get("/api/documents", headers=auth(keys.bob))).json()["documents"]
    assert [d["title"] for d in bob_docs] == ["Project Falcon"]
    bob_chats = (await client.get("/api/conversations", headers=auth(keys.bob))).json()
    assert bob_chats == {"conversations": []}


@pytest.mark.parametrize("mode", ["agent", "pipeline"])
async def test_research_only_reads_the_askers_documents(
    client: httpx.AsyncClient, keys: Keys, alices: dict[str, str], mode: str
) -> None:
    response = await client.post(
        "/api/ask",
        headers=auth(keys.bob),
        json={"question": "What is the market value of the Highlands estate?", "mode": mode},
    )
    final = next(e for e in sse_events(response.text) if e != "[DONE]" and e["type"] == "final")
    assert all(c["title"] == "Project Falcon" for c in final["citations"])
    for secret in ("2,300,000", alices["doc_id"], alices["chunk_id"]):
        assert secret not in response.text


async def test_the_openai_endpoint_only_reads_the_askers_documents(
    app: FastAPI, client: httpx.AsyncClient, keys: Keys, alices: dict[str, str]
) -> None:
    response = await client.post(
        "/v1/chat/completions",
        headers=auth(keys.bob),
        json={"model": "docuchat", "messages": [{"role": "user", "content": "Highlands value?"}]},
    )
    assert response.status_code == 200
    assert "2,300,000" not in response.text
    assert all(c["title"] == "Project Falcon" for c in response.json()["citations"])
