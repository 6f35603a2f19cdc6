"""get_model wiring: spec strings and environment variables to configured adapters."""

from __future__ import annotations

import pytest

from docuchat.errors import ConfigError
from docuchat.models import get_model
from docuchat.models.anthropic import AnthropicModel
from docuchat.models.base import ModelRequest, ToolSpec, UserMessage
from docuchat.models.openai import OpenAIChatModel
from docuchat.models.text_protocol import TextProtocolModel
from docuchat.models.tokens import TokenEstimator
from docuchat.models.tools_or_text import ToolsOrTextModel

from .conftest import Reply, ScriptedServer, anthropic_message, completion

REQUEST = ModelRequest(system="", messages=[UserMessage("Hi")])


async def test_openai_spec_uses_the_key_and_base_url_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, server: ScriptedServer
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1/")
    model = get_model("openai:gpt-4o-mini")
    assert isinstance(model, ToolsOrTextModel) and isinstance(model.native, OpenAIChatModel)
    assert model.name == "openai:gpt-4o-mini"
    server.queue(Reply.json(completion("hello")))
    assert (await model.complete(REQUEST)).text == "hello"
    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-env"
    assert sent.json()["model"] == "gpt-4o-mini"


async def test_a_compatible_server_needs_no_key(
    monkeypatch: pytest.MonkeyPatch, server: ScriptedServer
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    model = get_model("openai:llama3.2")
    server.queue(Reply.json(completion()))
    await model.complete(REQUEST)
    assert "authorization" not in server.requests[0].headers


@pytest.mark.parametrize("spec", ["openai:gpt-4o", "text:openai:gpt-4o"])
def test_the_official_openai_api_requires_a_key(spec: str) -> None:
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        get_model(spec)


async def test_anthropic_spec_uses_the_key_and_base_url_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, server: ScriptedServer
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    model = get_model("anthropic:claude-haiku-4-5")
    assert isinstance(model, AnthropicModel)
    server.queue(Reply.json(anthropic_message("hi")))
    assert (await model.complete(REQUEST)).text == "hi"
    sent = server.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == "sk-ant-env"
    assert sent.headers["anthropic-version"] == "2023-06-01"


@pytest.mark.parametrize("spec", ["anthropic:claude-haiku-4-5", "text:anthropic:claude-x"])
def test_the_anthropic_api_requires_a_key(spec: str) -> None:
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        get_model(spec)


async def test_text_spec_wraps_the_inner_model(
    monkeypatch: pytest.MonkeyPatch, server: ScriptedServer
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    model = get_model("text:openai:small-local-model")
    assert isinstance(model, TextProtocolModel)
    assert isinstance(model.inner, OpenAIChatModel)  # the protocol is chosen: never switched
    assert model.name == "text:openai:small-local-model"
    server.queue(Reply.json(completion('TOOL_CALL {"tool": "search_docs", "input": {"q": 1}}')))
    tools = [ToolSpec("search_docs", "Search.", {"type": "object"})]
    response = await model.complete(ModelRequest(system="", messages=REQUEST.messages, tools=tools))
    assert [(c.name, c.arguments) for c in response.tool_calls] == [("search_docs", {"q": 1})]
    sent = server.requests[0].json()
    assert "tools" not in sent
    assert "search_docs" in sent["messages"][0]["content"]


@pytest.mark.parametrize("spec", ["openai:", "anthropic", "text:", "gemini:pro"])
def test_malformed_specs_are_config_errors(spec: str) -> None:
    with pytest.raises(ConfigError, match="unknown model spec"):
        get_model(spec)


def test_every_adapter_exposes_a_token_estimator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    for spec in ("openai:m", "anthropic:m", "text:openai:m"):
        # Not part of the Model protocol (base.py): the loop looks it up like this.
        estimator = getattr(get_model(spec), "token_estimator", None)
        assert isinstance(estimator, TokenEstimator)
        assert estimator.estimate(REQUEST) > 0
