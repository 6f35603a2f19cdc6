"""User errors through the CLI: each names the file, key or URL and how to fix it, exits
non-zero, and is never a traceback (the runner re-raises any exception); ``docuchat config``
tells where every setting came from."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from pydantic import BaseModel

from docuchat.config import unknown_keys

from .conftest import run, run_json


def write_config(home: Path, text: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "config.toml"
    path.write_text(text)
    return path


def test_a_config_file_that_is_not_toml_names_the_file_and_the_line(home: Path) -> None:
    path = write_config(home, 'owner = "ann"\nmodel = offline\n')

    for command in (["docs", "list"], ["search", "x"], ["ask", "x"], ["config"]):
        result = run(*command)
        assert result.exit_code == 1, command
        assert str(path) in result.output and "line 2" in result.output
        assert "Traceback" not in result.output and len(result.output.splitlines()) == 1


def test_a_misspelt_key_is_reported_with_the_closest_one(home: Path) -> None:
    path = write_config(home, 'embeder = "none"\nport = 9001\n')  # port: the server's, known

    result = run("docs", "list")

    assert result.exit_code == 1
    assert f"{path}: unknown key 'embeder' (did you mean 'embedder'?)" in result.output
    assert "unknown key 'port'" not in result.output


class _Server(BaseModel):
    command: str | None = None
    timeout: float = 30


class _Servers(BaseModel):
    servers: dict[str, _Server] = {}


class _Schema(BaseModel):
    model: str = "offline"
    mcp: _Servers = _Servers()


def test_unknown_keys_are_found_inside_tables_of_named_tables() -> None:
    data = {
        "model": "offline",
        "mcp": {"servers": {"memory": {"command": "npx", "timout": 5}}, "server": {}},
    }

    assert unknown_keys(data, _Schema) == [
        "unknown key 'mcp.servers.memory.timout' (did you mean 'mcp.servers.memory.timeout'?)",
        "unknown key 'mcp.server' (did you mean 'mcp.servers'?)",
    ]


def test_a_value_of_the_wrong_kind_names_its_source(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_config(home, 'port = "eighty"\n')
    from_file = run("config")
    assert from_file.exit_code == 1 and f"{path}: port" in from_file.output

    monkeypatch.setenv("DOCUCHAT_MAX_FILES", "many")
    write_config(home, "")
    from_env = run("config")
    assert from_env.exit_code == 1 and "environment variable DOCUCHAT_MAX_FILES" in from_env.output


def test_config_shows_each_setting_and_where_it_came_from(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_config(home, 'owner = "ann"\nport = 9001\n')
    monkeypatch.setenv("DOCUCHAT_MODEL", "openai:from-env")

    shown = run_json("config", "--embedder", "hash:32")
    settings = shown["settings"]

    assert shown["config_file"] == str(path) and shown["config_file_exists"]
    assert settings["embedder"] == {"value": "hash:32", "source": "flag", "where": "--embedder"}
    assert settings["model"] == {
        "value": "openai:from-env",
        "source": "env",
        "where": "DOCUCHAT_MODEL",
    }
    assert settings["owner"] == {"value": "ann", "source": "file", "where": f"{path}: owner"}
    assert settings["port"]["value"] == 9001 and settings["port"]["source"] == "file"
    assert settings["host"] == {"value": "127.0.0.1", "source": "default", "where": ""}
    assert shown["database"] == str(home / "docuchat.db")
    table = run("config").stdout
    assert "env: DOCUCHAT_MODEL" in table and "default" in table


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_model_server_names_the_url_and_exits_non_zero(
    good_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    run("ingest", str(good_folder))

    result = run("ask", "Why do tides happen?", "--model", "openai:some-model")
    as_json = run("ask", "Why do tides happen?", "--model", "openai:some-model", "--json")

    assert result.exit_code == 1
    assert f"connection to the model server at {url} failed: connection refused" in result.output
    assert "OPENAI_BASE_URL" in result.output and "ClientConnectorError" not in result.output
    assert as_json.exit_code == 1
    assert json.loads(as_json.stdout.splitlines()[0])["outcome"] == "model_error"
