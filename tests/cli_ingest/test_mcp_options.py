"""MCP servers for ``ask``/``chat``: from ``[mcp.servers.NAME]`` in config.toml and ``--mcp``."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from docuchat.cli.main import cli
from docuchat.config import MCPServerConfig, Settings
from docuchat.errors import ConfigError
from mcp_peers import DEMO_SERVER, children


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("DOCUCHAT_HOME", str(path))
    monkeypatch.setenv("DOCUCHAT_EMBEDDER", "none")
    for name in ("DOCUCHAT_DB", "DOCUCHAT_OWNER"):
        monkeypatch.delenv(name, raising=False)
    return path


def ask(tmp_path: Path, *options: str) -> tuple[Result, list[str]]:
    """``docuchat ask`` with the scripted model; the tools its run offered the model."""
    trace = tmp_path / "trace.jsonl"
    args = ["ask", "q", "--model", "scripted", "--json", "--trace", str(trace), *options]
    result = CliRunner().invoke(cli, args)
    events = trace.read_text().splitlines() if trace.exists() else []
    return result, json.loads(events[0])["tools"] if events else []


DEMO = f"{shlex.quote(sys.executable)} {shlex.quote(str(DEMO_SERVER))}"


def test_configured_servers_join_the_rich_tools_and_stop_afterwards(
    home: Path, tmp_path: Path
) -> None:
    (home / "config.toml").write_text(
        f'[mcp.servers.demo]\ncommand = "{sys.executable}"\nargs = ["{DEMO_SERVER}"]\ntimeout = 5\n'
    )
    assert Settings().mcp.servers == {
        "demo": MCPServerConfig(command=sys.executable, args=(str(DEMO_SERVER),), timeout=5)
    }
    before = set(children())
    result, tools = ask(tmp_path)
    assert result.exit_code == 0, result.output
    assert {"search_docs", "read_document", "add", "shout"} <= set(tools)
    assert set(children()) - before == set()
    # --tools basic leaves the configured servers unstarted (and needs documents to read).
    (tmp_path / "notes.md").write_text("# Notes\n\nThe demo server adds and shouts.")
    assert CliRunner().invoke(cli, ["ingest", str(tmp_path / "notes.md")]).exit_code == 0
    result, tools = ask(tmp_path, "--tools", "basic")
    assert result.exit_code == 0 and tools == ["search_docs", "open_citation"]


def test_mcp_flag_adds_a_server_for_the_command(tmp_path: Path) -> None:
    result, tools = ask(tmp_path, "--mcp", f"left={DEMO}", "--mcp", f"right={DEMO}")
    assert result.exit_code == 0, result.output
    assert {"left_add", "right_add", "left_shout", "search_docs"} <= set(tools)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--mcp", "nameless"], "expected NAME=COMMAND or NAME=URL"),
        (["--mcp", "bad name=cmd"], "String should match pattern"),
        (["--tools", "basic", "--mcp", f"demo={DEMO}"], "MCP tools join the rich tool set"),
    ],
)
def test_bad_mcp_options_are_usage_errors(tmp_path: Path, options: list[str], message: str) -> None:
    result, _ = ask(tmp_path, *options)
    assert result.exit_code == 2 and message in result.output


def test_a_server_that_cannot_start_fails_the_command_cleanly(tmp_path: Path) -> None:
    result, tools = ask(tmp_path, "--mcp", "ghost=/nonexistent/mcp-server")
    assert result.exit_code == 1 and tools == []
    assert "Error: MCP server 'ghost' could not start: FileNotFoundError" in result.output


def test_a_server_needs_a_command_or_a_url_not_both(home: Path) -> None:
    (home / "config.toml").write_text(
        '[mcp.servers.both]\ncommand = "x"\nurl = "http://127.0.0.1/mcp"\n'
    )
    with pytest.raises(
        ConfigError, match=r"config.toml: mcp\.servers\.both: .*either a command or a url"
    ):
        Settings()
