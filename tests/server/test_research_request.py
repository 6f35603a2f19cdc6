"""A question's research controls through the API: detail, tools and limits per request
(capped at the server's maxima), the models a request may choose, and /v1's extra body."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from docuchat.config import ResearchConfig
from docuchat.models.base import ModelRequest, ModelResponse, ToolResultsMessage
from docuchat.models.scripted import ScriptedModel, call, reply
from docuchat.research import SearchResults

from .conftest import Keys, auth, research_policy, services_of

pytestmark = pytest.mark.usefixtures("documents")

QUESTION = "What is the annual rent of the cottage?"


async def ask(client: httpx.AsyncClient, key: str, **body: Any) -> dict[str, Any]:
    response = await client.post(
        "/api/ask", headers=auth(key), json={"question": QUESTION, "stream": False, **body}
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


async def kept_tools(client: httpx.AsyncClient, key: str, conversation_id: str) -> list[str]:
    response = await client.get(f"/api/conversations/{conversation_id}", headers=auth(key))
    [turn] = response.json()["turns"]
    return [f"{s['tool_name']}:{s['tool_status']}" for s in turn["steps"]]


def read_what_search_found(request: ModelRequest) -> ModelResponse:
    """Search, read every document found with one call, answer."""
    results = [m for m in request.messages if isinstance(m, ToolResultsMessage)]
    if not results:
        return call("search_docs", query="cottage rent estate")
    if len(results) == 1:
        found = results[0].results[0].value
        assert isinstance(found, SearchResults)
        return call("read_multiple_documents", docIds=[h.doc_id for h in found.hits])
    return reply("The annual rent is 14,400 pounds [1].")


async def test_the_rich_tools_are_reachable_per_request(
    app: FastAPI, client: httpx.AsyncClient, keys: Keys
) -> None:
    services_of(app).model = ScriptedModel(read_what_search_found)

    rich = await ask(client, keys.alice, research={"tools": "rich"})
    basic = await ask(client, keys.alice)

    assert await kept_tools(client, keys.alice, rich["conversation_id"]) == [
        "search_docs:complete",
        "read_multiple_documents:complete",
    ]
    assert await kept_tools(client, keys.alice, basic["conversation_id"]) == [
        "search_docs:complete",
        "read_multiple_documents:error",  # not a tool of the basic set
    ]


async def test_detail_and_limits_per_request_within_the_servers_maxima(
    app: FastAPI, client: httpx.AsyncClient, keys: Keys
) -> None:
    services = services_of(app)
    searches = iter(range(100))
    services.model = ScriptedModel(
        lambda request: (
            call("search_docs", query=f"rent {next(searches)}")
            if request.tools
            else reply("No answer.")
        )
    )
    brief = await ask(client, keys.alice, research={"detail": "brief"})
    standard = await ask(client, keys.alice)
    detailed = await ask(client, keys.alice, research={"detail": "detailed", "max_tool_calls": 7})
    assert [r["usage"]["tool_calls"] for r in (brief, standard, detailed)] == [3, 5, 7]

    services.model = ScriptedModel(research_policy)
    services.settings = services.settings.model_copy(update={"max_question_tool_calls": 1})
    capped = await ask(client, keys.alice, research={"max_tool_calls": 50})
    assert capped["usage"]["tool_calls"] == 1  # 50 asked, 1 allowed: capped, not refused
    assert capped["forced"] is True


async def test_a_request_chooses_only_a_model_the_server_allows(
    app: FastAPI, client: httpx.AsyncClient, keys: Keys
) -> None:
    services = services_of(app)
    unlisted = await client.post(
        "/api/ask",
        headers=auth(keys.alice),
        json={"question": QUESTION, "stream": False, "model": "scripted"},
    )
    assert unlisted.status_code == 404
    assert "does not let a question choose its model" in unlisted.json()["detail"]

    research = ResearchConfig(
        models_allowed=("scripted", services.settings.model), min_model_for_agent="offline"
    )
    services.settings = services.settings.model_copy(update={"research": research})
    other = await client.post(
        "/api/ask",
        headers=auth(keys.alice),
        json={"question": QUESTION, "stream": False, "model": "openai:gpt-x"},
    )
    weak = await ask(client, keys.alice, model="scripted")
    default = await ask(client, keys.alice)

    assert other.status_code == 404 and "scripted, offline" in other.json()["detail"]
    assert (weak["mode"], weak["answer"]) == ("pipeline", "ok")  # the scripted model's reply
    assert weak["mode_reason"].startswith("scripted is below min_model_for_agent (offline)")
    assert (default["mode"], default["mode_reason"]) == ("agent", "")


async def test_v1_takes_the_research_controls_in_its_extra_body(
    app: FastAPI, client: httpx.AsyncClient, keys: Keys
) -> None:
    model = ScriptedModel(research_policy)
    services_of(app).model = model
    body = {
        "model": "docuchat",
        "messages": [{"role": "user", "content": QUESTION}],
        "research": {"max_tool_calls": 1},
    }

    response = await client.post("/v1/chat/completions", headers=auth(keys.alice), json=body)

    assert response.status_code == 200, response.text
    # The search, the open the limit refused, then a forced synthesis without tools.
    assert len(model.requests) == 3 and not model.requests[-1].tools


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"research": {"max_tool_calls": True}}, "max_tool_calls"),  # lax pydantic: 1
        ({"research": {"max_iterations": "3"}}, "max_iterations"),  # lax pydantic: 3
        ({"research": {"max_tool_calls": 0}}, "max_tool_calls"),
        ({"research": {"timeout": False}}, "timeout"),
        ({"stream": 1}, "stream"),  # lax pydantic: true
    ],
)
async def test_values_of_the_wrong_json_type_are_refused_not_coerced(
    client: httpx.AsyncClient, keys: Keys, body: dict[str, Any], field: str
) -> None:
    response = await client.post(
        "/api/ask", headers=auth(keys.alice), json={"question": QUESTION, **body}
    )
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"][-1] == field


async def test_a_whole_number_written_as_a_float_is_an_integer(
    app: FastAPI, client: httpx.AsyncClient, keys: Keys
) -> None:
    """JSON Schema counts 2.0 as an integer: the API takes it as one."""
    services_of(app).model = ScriptedModel([reply("The documents do not say.")])
    result = await ask(client, keys.alice, research={"max_tool_calls": 2.0})
    assert result["outcome"] == "answered"
