"""The official ``openai`` client uses docuchat as a model, against a server on a real socket."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from docuchat.models.base import AssistantMessage, UserMessage
from docuchat.models.scripted import ScriptedModel

from .conftest import Keys

QUESTION = "What is the market value of the Highlands estate?"
ANSWER = (
    "The market value of the Highlands estate was assessed at 2,300,000 pounds in February 2024."
)
SOURCES = "Sources:\n[1] Highlands Valuation Report, page 1 (verified)"


@pytest.fixture
def client(server_url: str, live_keys: Keys) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=f"{server_url}/v1", api_key=live_keys.alice, max_retries=0) as c:
        yield c


def ask(question: str = QUESTION) -> list[ChatCompletionMessageParam]:
    return [{"role": "user", "content": question}]


def test_the_models_are_listed(client: openai.OpenAI) -> None:
    assert [m.id for m in client.models.list()] == ["docuchat", "docuchat-pipeline"]


@pytest.mark.parametrize("model_name", ["docuchat", "docuchat-pipeline"])
def test_a_completion_cites_its_sources_in_the_text_and_in_a_field(
    client: openai.OpenAI, model_name: str
) -> None:
    completion = client.chat.completions.create(model=model_name, messages=ask())
    assert completion.id.startswith("chatcmpl-")
    assert completion.model == model_name
    [choice] = completion.choices
    assert choice.finish_reason == "stop"
    assert choice.message.role == "assistant"
    content = choice.message.content or ""
    assert content.startswith(ANSWER + " [")
    assert "Sources:\n[" in content
    assert completion.model_extra is not None
    citations = completion.model_extra["citations"]
    assert citations[0]["title"] in content
    assert all(c["verified"] for c in citations)
    # Whether the cited text addresses the question, not only whether it supports the answer.
    assert all(c["addresses"] is True for c in citations)
    assert citations[0]["relevance"]["coverage"] == 1.0  # it holds all the question's terms
    assert completion.usage is not None
    assert completion.usage.total_tokens > 0


def test_quotes_that_do_not_address_the_question_are_no_answer_in_the_text(
    client: openai.OpenAI,
) -> None:
    """A client that shows only the text (no ``presentation`` field) is told too, as the
    CLI and the page tell their readers."""
    completion = client.chat.completions.create(
        model="docuchat", messages=ask("What is the bank account number of the estate?")
    )
    content = completion.choices[0].message.content or ""
    assert content.startswith(
        "No answer: the passages found do not address the question. Related passages:\n\n"
    )
    assert completion.model_extra is not None
    assert [c["addresses"] for c in completion.model_extra["citations"]] == [False]


def test_a_streamed_completion_shows_the_steps_then_the_same_answer(
    client: openai.OpenAI,
) -> None:
    whole = client.chat.completions.create(model="docuchat", messages=ask())
    stream = client.chat.completions.create(
        model="docuchat",
        messages=ask(),
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    assert {c.id for c in chunks} == {chunks[0].id}
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"

    deltas = [c.choices[0].delta for c in chunks if c.choices]
    thinking = "".join((d.model_extra or {}).get("reasoning_content") or "" for d in deltas)
    searching, found, *reading = thinking.splitlines()
    assert searching == f"Searching for: {QUESTION}"
    assert found.startswith("Found 2 passages in 2 documents: ")
    assert reading == [
        "Reading a passage of Highlands Valuation Report",
        "Read [1] Highlands Valuation Report, page 1",
    ]
    text = "".join(d.content or "" for d in deltas)
    assert text == whole.choices[0].message.content == f"{ANSWER} [1]\n\n{SOURCES}"

    *_, last_choice, usage = chunks
    assert last_choice.choices[0].finish_reason == "stop"
    assert last_choice.model_extra is not None
    assert last_choice.model_extra["citations"][0]["verified"] is True
    assert last_choice.model_extra["citations"][0]["addresses"] is True
    assert usage.choices == []
    assert usage.usage is not None
    assert usage.usage.total_tokens > 0


def test_earlier_messages_are_the_conversation_so_far(
    client: openai.OpenAI, model: ScriptedModel
) -> None:
    messages: list[ChatCompletionMessageParam] = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": [{"type": "text", "text": "2,300,000 pounds."}]},
        {"role": "user", "content": "What is the annual rent of the east cottage?"},
    ]
    completion = client.chat.completions.create(model="docuchat", messages=messages)
    assert "14,400 pounds" in (completion.choices[0].message.content or "")
    assert list(model.requests[0].messages[:3]) == [
        UserMessage(QUESTION),
        AssistantMessage("2,300,000 pounds."),
        UserMessage("What is the annual rent of the east cottage?"),
    ]


def test_each_key_reads_only_its_owners_documents(server_url: str, live_keys: Keys) -> None:
    with openai.OpenAI(base_url=f"{server_url}/v1", api_key=live_keys.bob, max_retries=0) as bob:
        completion = bob.chat.completions.create(model="docuchat", messages=ask())
    assert "2,300,000" not in (completion.choices[0].message.content or "")


def test_errors_come_back_as_openai_errors(server_url: str, client: openai.OpenAI) -> None:
    with (
        openai.OpenAI(base_url=f"{server_url}/v1", api_key="wrong", max_retries=0) as stranger,
        pytest.raises(openai.AuthenticationError),
    ):
        stranger.models.list()
    with pytest.raises(openai.NotFoundError, match="does not exist"):
        client.chat.completions.create(model="gpt-4o", messages=ask())
    with pytest.raises(openai.BadRequestError, match="the last message must be"):
        client.chat.completions.create(
            model="docuchat",
            messages=[{"role": "assistant", "content": "hello"}],
        )
    with pytest.raises(openai.BadRequestError, match="messages"):
        client.chat.completions.create(model="docuchat", messages=[])
