"""POST /api/ask: live steps, answer deltas, the final event; conversations and follow-ups."""

from __future__ import annotations

import asyncio
import re
import socket
import time
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from docuchat.errors import ModelHTTPError
from docuchat.models.base import AssistantMessage, ModelRequest, ModelResponse, UserMessage
from docuchat.models.http import RetryPolicy
from docuchat.models.openai import OpenAIChatModel
from docuchat.models.scripted import ScriptedModel, reply

from .conftest import Keys, auth, research_policy, services_of, sse_events

QUESTION = "What is the market value of the Highlands estate?"
ANSWER = (
    "The market value of the Highlands estate was assessed at 2,300,000 pounds in February 2024."
)

pytestmark = pytest.mark.usefixtures("documents")


async def ask(client: httpx.AsyncClient, key: str, **body: Any) -> httpx.Response:
    return await client.post("/api/ask", headers=auth(key), json={"question": QUESTION, **body})


async def test_a_streamed_answer_shows_each_step_then_the_answer_then_the_final_event(
    client: httpx.AsyncClient, keys: Keys, documents: dict[str, list[dict[str, Any]]]
) -> None:
    response = await ask(client, keys.alice)
    assert response.headers["content-type"].startswith("text/event-stream")
    events = sse_events(response.text)
    run, *middle, final, done = events
    assert done == "[DONE]"
    assert run["type"] == "run"
    assert final["type"] == "final"
    assert (final["run_id"], final["conversation_id"]) == (run["run_id"], run["conversation_id"])

    steps = [e for e in middle if e["type"] == "step"]
    found = steps[1]["message"]
    assert found.startswith("Found 2 passages in 2 documents: ")
    assert set(found.split(": ", 1)[1].split(", ")) == {
        "Highlands Valuation Report",
        "lease",
    }
    assert [(s["tool_name"], s["tool_status"], s["action_type"], s["message"]) for s in steps] == [
        ("search_docs", "running", "searching", f"Searching for: {QUESTION}"),
        ("search_docs", "complete", "searching", found),
        ("open_citation", "running", "reading", "Reading a passage of Highlands Valuation Report"),
        ("open_citation", "complete", "reading", "Read [1] Highlands Valuation Report, page 1"),
    ]
    search_start, search_end, open_start, open_end = steps
    assert search_start["step_id"] == search_end["step_id"] != open_start["step_id"]
    assert open_start["step_id"] == open_end["step_id"]
    assert search_start["tool_input"] == {"query": QUESTION}
    assert search_start["tool_output"] is search_start["duration_ms"] is None
    assert search_end["tool_output"] == found
    assert '"hits"' in search_end["detail"]
    assert search_end["duration_ms"] >= 0
    assert search_start["timestamp"] <= search_end["timestamp"] <= open_end["timestamp"]
    assert open_start["tool_input"]["docId"] == documents["alice"][0]["id"]

    deltas = [e for e in middle if e["type"] == "answer_delta"]
    assert middle.index(deltas[0]) > middle.index(open_end)
    assert "".join(d["text"] for d in deltas) == final["answer"] == f"{ANSWER} [1]"
    assert {d["model_call"] for d in deltas} == {3}

    [citation] = final["citations"]
    assert citation["n"] == 1
    assert citation["verified"] is True
    assert citation["title"] == "Highlands Valuation Report"
    assert citation["quote"].endswith(ANSWER)
    assert (final["outcome"], final["forced"], final["fallback"]) == ("answered", False, False)
    assert final["verified_citations"] == 1
    # The quote addresses the question (it holds all its terms), so it is an answer.
    assert citation["addresses"] is True
    assert citation["relevance"]["coverage"] == 1.0
    assert final["presentation"] == "answer"
    [part] = final["relevance"]["parts"]
    assert (part["asks"], part["addressed_by"]) == (QUESTION, [1])
    assert final["usage"]["model_calls"] == 3
    assert final["usage"]["tool_calls"] == 2


async def test_a_citation_span_highlights_its_quote_in_the_passage(
    client: httpx.AsyncClient, keys: Keys
) -> None:
    result = (await ask(client, keys.alice, stream=False)).json()
    [citation] = result["citations"]
    passage = (
        await client.get(f"/api/passages/{citation['chunk_id']}", headers=auth(keys.alice))
    ).json()
    start, end = citation["span"]
    assert passage["text"][start - passage["start"] : end - passage["start"]] == citation["quote"]
    assert passage["context_before"] == ""
    assert passage["doc_id"] == citation["doc_id"]


async def test_a_non_streamed_answer_is_the_final_object(
    client: httpx.AsyncClient, keys: Keys
) -> None:
    response = await ask(client, keys.alice, stream=False)
    assert response.headers["content-type"] == "application/json"
    result = response.json()
    assert "type" not in result
    assert result["answer"] == f"{ANSWER} [1]"
    assert result["citations"][0]["verified"] is True
    assert result["mode"] == "agent"


async def test_the_conversation_keeps_each_turn_and_a_follow_up_sees_them(
    client: httpx.AsyncClient, keys: Keys, model: ScriptedModel
) -> None:
    first = (await ask(client, keys.alice, stream=False)).json()
    conversation_id = first["conversation_id"]
    calls_before = len(model.requests)
    follow_up = await ask(
        client,
        keys.alice,
        question="What is the annual rent of the east cottage?",
        conversation_id=conversation_id,
        stream=False,
    )
    assert follow_up.json()["conversation_id"] == conversation_id
    assert list(model.requests[calls_before].messages[:3]) == [
        UserMessage(QUESTION),
        AssistantMessage(first["answer"]),
        UserMessage("What is the annual rent of the east cottage?"),
    ]

    stored = (
        await client.get(f"/api/conversations/{conversation_id}", headers=auth(keys.alice))
    ).json()
    assert stored["title"] == QUESTION
    assert [t["question"] for t in stored["turns"]] == [
        QUESTION,
        "What is the annual rent of the east cottage?",
    ]
    assert stored["turns"][0]["answer"] == first["answer"]
    assert stored["turns"][0]["citations"] == first["citations"]
    assert stored["turns"][1]["outcome"] == "answered"
    listed = (await client.get("/api/conversations", headers=auth(keys.alice))).json()
    assert [(c["id"], c["turns"]) for c in listed["conversations"]] == [(conversation_id, 2)]


async def test_conversations_can_be_created_and_deleted(
    client: httpx.AsyncClient, keys: Keys
) -> None:
    created = await client.post("/api/conversations", headers=auth(keys.alice), json={})
    assert created.status_code == 201
    conversation = created.json()
    assert (conversation["title"], conversation["turns"]) == ("New conversation", [])
    answered = await ask(client, keys.alice, conversation_id=conversation["id"], stream=False)
    assert answered.json()["conversation_id"] == conversation["id"]

    deleted = await client.delete(
        f"/api/conversations/{conversation['id']}", headers=auth(keys.alice)
    )
    assert deleted.status_code == 204
    gone = await client.get(f"/api/conversations/{conversation['id']}", headers=auth(keys.alice))
    assert gone.status_code == 404


async def test_pipeline_mode_answers_with_verified_citations(
    client: httpx.AsyncClient, keys: Keys
) -> None:
    result = (await ask(client, keys.alice, mode="pipeline", stream=False)).json()
    assert result["mode"] == "pipeline"
    assert re.search(r"\[\d\]$", result["answer"])
    assert [c["verified"] for c in result["citations"]] == [True]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"question": ""}, 422),
        ({"question": "   "}, 422),
        ({"question": QUESTION, "mode": "oracle"}, 422),
        ({"question": QUESTION, "conversation_id": "nope"}, 404),
        ({}, 422),
    ],
)
async def test_bad_questions_are_refused(
    client: httpx.AsyncClient, keys: Keys, body: dict[str, Any], status: int
) -> None:
    response = await client.post("/api/ask", headers=auth(keys.alice), json=body)
    assert response.status_code == status
    listed = (await client.get("/api/conversations", headers=auth(keys.alice))).json()
    assert listed["conversations"] == []


@pytest.fixture
def failing_model(app: FastAPI) -> None:
    services_of(app).model = ScriptedModel(
        [ModelHTTPError(503, "overloaded"), ModelHTTPError(503, "still overloaded")]
    )


@pytest.mark.usefixtures("failing_model")
async def test_a_failing_model_is_an_outcome_in_the_final_event(
    client: httpx.AsyncClient, keys: Keys
) -> None:
    events = sse_events((await ask(client, keys.alice)).text)
    final = events[-2]
    assert final["type"] == "final"
    # The agent failed before reading anything, the pipeline's model after its search and
    # opens: the answer quotes the passages the pipeline read.
    assert (final["outcome"], final["fallback"], final["extractive"]) == ("answered", True, True)
    assert final["answer"].startswith("From the documents (extractive)")
    assert "overloaded" in final["fallback_reason"]


async def kept_steps(client: httpx.AsyncClient, key: str, conversation_id: str) -> Any:
    response = await client.get(f"/api/conversations/{conversation_id}", headers=auth(key))
    return [turn["steps"] for turn in response.json()["turns"]]


async def test_each_turn_keeps_its_steps_as_they_were_streamed(
    client: httpx.AsyncClient, keys: Keys
) -> None:
    events = sse_events((await ask(client, keys.alice)).text)
    streamed = [e for e in events[1:-2] if e["type"] == "step" and e["tool_status"] != "running"]

    [kept] = await kept_steps(client, keys.alice, events[0]["conversation_id"])

    assert len(kept) == len(streamed) == 2
    for step, shown in zip(kept, streamed, strict=True):
        assert step == {**{k: v for k, v in shown.items() if k != "type"}, "note": step["note"]}


@pytest.mark.usefixtures("failing_model")
async def test_a_pipeline_fallback_keeps_its_fixed_steps(
    client: httpx.AsyncClient, keys: Keys
) -> None:
    events = sse_events((await ask(client, keys.alice)).text)

    [kept] = await kept_steps(client, keys.alice, events[0]["conversation_id"])

    assert [step["tool_name"] for step in kept] == ["search_docs", "open_citation", "open_citation"]
    assert {step["tool_status"] for step in kept} == {"complete"}


async def test_an_unreachable_model_server_is_named_in_the_final_event(
    app: FastAPI, client: httpx.AsyncClient, keys: Keys
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    services_of(app).model = OpenAIChatModel("m", base_url=url, retry=RetryPolicy(max_retries=0))

    final = sse_events((await ask(client, keys.alice)).text)[-2]

    assert (final["outcome"], final["fallback"]) == ("model_error", False)  # no point retrying
    assert final["model_error"] == (
        f"connection to the model server at {url} failed: connection refused"
    )


@pytest.fixture
def crashing_model(app: FastAPI) -> None:
    services_of(app).model = ScriptedModel(lambda _request: 1 / 0)  # type: ignore[arg-type,return-value]


@pytest.mark.usefixtures("crashing_model")
async def test_a_model_that_raises_is_a_model_error_outcome(
    client: httpx.AsyncClient, keys: Keys
) -> None:
    """Nothing raises out of a run: a model breaking its contract is a typed outcome."""
    final = sse_events((await ask(client, keys.alice)).text)[-2]
    assert (final["type"], final["fallback"], final["extractive"]) == ("final", True, True)
    assert final["fallback_reason"].startswith("model_error: ZeroDivisionError")


@pytest.fixture
def crashing_save(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    def add_turn(*_args: object) -> None:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(services_of(app).accounts, "add_turn", add_turn)


@pytest.mark.usefixtures("crashing_save")
async def test_a_crashed_run_ends_with_an_error_not_a_hang(
    client: httpx.AsyncClient, keys: Keys
) -> None:
    events = sse_events((await ask(client, keys.alice)).text)
    assert [e if e == "[DONE]" else e["type"] for e in events[-2:]] == ["error", "[DONE]"]
    assert "final" not in [e["type"] for e in events[:-1]]
    assert "ZeroDivisionError" in events[-2]["message"]
    response = await ask(client, keys.alice, stream=False)
    assert response.status_code == 500
    assert "ZeroDivisionError" in response.json()["detail"]


def marked_policy(request: ModelRequest) -> ModelResponse:
    """The research policy, with the question's marker repeated in the answer."""
    response = research_policy(request)
    if response.tool_calls:
        return response
    question = next(m.content for m in request.messages if isinstance(m, UserMessage))
    marker = re.search(r"#\d+", question)
    return reply(f"{response.text} {marker.group() if marker else ''}")


async def test_many_conversations_at_once_do_not_wait_for_each_other(
    app: FastAPI, client: httpx.AsyncClient, keys: Keys
) -> None:
    services_of(app).model = ScriptedModel(marked_policy, delay=0.2)
    count = 25

    async def one(n: int) -> dict[str, Any]:
        key = keys.alice if n % 2 else keys.bob
        response = await ask(client, key, question=f"market value Highlands Falcon #{n}")
        final: dict[str, Any] = sse_events(response.text)[-2]
        return final

    started = time.perf_counter()
    finals = await asyncio.gather(*(one(n) for n in range(count)))
    elapsed = time.perf_counter() - started
    assert elapsed < 3 * 0.2 * 4, f"{count} runs of 3 model calls took {elapsed:.2f}s"
    for n, final in enumerate(finals):
        assert final["answer"].endswith(f"#{n}")
        assert final["outcome"] == "answered"
