"""``docuchat users`` and ``docuchat serve``, and where the server's settings come from."""

from __future__ import annotations

import gc
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from docuchat.cli.main import cli
from docuchat.server import ServerSettings
from docuchat.server.heap import THRESHOLDS
from docuchat.store.accounts import open_accounts

from .conftest import auth


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DOCUCHAT_HOME", str(tmp_path))
    for name in ("DOCUCHAT_DB", "DOCUCHAT_PORT", "DOCUCHAT_HOST", "DOCUCHAT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_users_add_prints_a_key_that_works_once(home: Path) -> None:
    runner = CliRunner()
    added = runner.invoke(cli, ["users", "add", "alice"])
    assert added.exit_code == 0, added.output
    key = added.stdout.strip()
    assert "shown this once" in added.stderr
    accounts = open_accounts(home / "docuchat.db")
    try:
        assert accounts.authenticate(key).name == "alice"
    finally:
        accounts.close()

    again = runner.invoke(cli, ["users", "add", "alice"])
    assert again.exit_code == 1
    assert "already exists" in again.stderr

    second = runner.invoke(cli, ["users", "key", "alice", "--json"])
    assert json.loads(second.stdout)["name"] == "alice"
    assert json.loads(second.stdout)["api_key"] != key


def test_users_list(home: Path) -> None:
    runner = CliRunner()
    empty = runner.invoke(cli, ["users", "list"])
    assert (empty.exit_code, empty.stdout) == (0, "")
    assert "No users yet" in empty.stderr
    for name in ("alice", "bob"):
        runner.invoke(cli, ["users", "add", name, "--db", str(home / "other.db")])
    listed = runner.invoke(cli, ["users", "list", "--json", "--db", str(home / "other.db")])
    assert [u["name"] for u in json.loads(listed.stdout)] == ["alice", "bob"]
    assert runner.invoke(cli, ["users", "list"]).stdout == ""


def test_users_add_refuses_a_bad_name(home: Path) -> None:
    result = CliRunner().invoke(cli, ["users", "add", "no spaces"])
    assert result.exit_code == 1
    assert "invalid user name" in result.stderr


def test_settings_come_from_flags_then_environment_then_config_file(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (home / "config.toml").write_text('port = 9001\nhost = "0.0.0.0"\nmax_files = 5\n')
    assert (ServerSettings().port, ServerSettings().host, ServerSettings().max_files) == (
        9001,
        "0.0.0.0",
        5,
    )
    monkeypatch.setenv("DOCUCHAT_PORT", "9002")
    assert (ServerSettings().port, ServerSettings().host) == (9002, "0.0.0.0")
    assert ServerSettings(port=9003).port == 9003


@contextmanager
def serving(**env: str) -> Iterator[tuple[str, list[str]]]:
    """``docuchat serve`` in a process of its own, on a free port, with ``env`` added to the
    environment: its URL and what it wrote on stderr until it was listening."""
    command = [sys.executable, "-c", "from docuchat.cli.main import main; main()", "serve"]
    command += ["--port", "0"]
    command += ["--model", "scripted", "--embedder", "none", "--no-access-log"]
    process = subprocess.Popen(
        command,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **env},
    )
    assert process.stderr is not None
    written = []
    try:
        for line in process.stderr:
            written.append(line)
            if found := re.search(r"running on (http://127\.0\.0\.1:\d+)", line):
                yield found.group(1), written
                break
        else:
            pytest.fail("the server did not start:\n" + "".join(written))
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(15) == 0


@pytest.fixture
def served(home: Path) -> Iterator[str]:
    with serving() as (url, _):
        yield url


def test_serve_answers_with_the_users_of_its_database(home: Path, served: str) -> None:
    key = CliRunner().invoke(cli, ["users", "add", "alice"]).stdout.strip()
    assert httpx.get(f"{served}/health").json()["status"] == "ok"
    assert httpx.get(f"{served}/api/me", headers=auth(key)).json()["name"] == "alice"
    assert httpx.get(f"{served}/api/me").status_code == 401


def test_serve_freezes_the_start_up_heap_before_serving(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Full collections would otherwise traverse start-up's objects and stall the loop."""
    import uvicorn

    seen: dict[str, object] = {}

    def run(app: object, **_options: object) -> None:
        seen.update(frozen=gc.get_freeze_count(), thresholds=gc.get_threshold())

    monkeypatch.setattr(uvicorn, "run", run)
    defaults = gc.get_threshold()
    try:
        result = CliRunner().invoke(cli, ["serve", "--model", "scripted", "--embedder", "none"])
    finally:
        gc.unfreeze()
        gc.set_threshold(*defaults)
    assert result.exit_code == 0, result.output
    assert isinstance(seen["frozen"], int) and seen["frozen"] > 10_000
    assert seen["thresholds"] == THRESHOLDS


def test_serve_warns_once_of_a_misspelt_variable_and_serves(home: Path) -> None:
    with serving(DOCUCHAT_EMBEDER="none") as (url, written):
        assert httpx.get(f"{url}/health").json()["status"] == "ok"
    warned = [line for line in written if "unknown setting" in line]
    assert warned == [
        "docuchat: warning: unknown setting DOCUCHAT_EMBEDER"
        " (did you mean DOCUCHAT_EMBEDDER?); it is ignored\n"
    ]
