"""A ``DOCUCHAT_*`` variable that docuchat does not read (a misspelt one) is a warning with the
closest known variable, once per process; the command still runs. No variable docuchat
reads is ever reported."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import docuchat
from docuchat import config
from docuchat.config import Settings, unknown_variables
from docuchat.server import ServerSettings

from .conftest import run, run_json

WARNING = "unknown setting DOCUCHAT_EMBEDER (did you mean DOCUCHAT_EMBEDDER?)"


@pytest.fixture(autouse=True)
def fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test a process that has warned of nothing yet."""
    monkeypatch.setattr(config, "_warned", set())


def test_a_misspelt_variable_is_warned_of_once_and_the_command_still_runs(
    good_folder: Path, db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCUCHAT_EMBEDER", "none")
    ingested = run("ingest", str(good_folder), "--db", db)
    assert ingested.exit_code == 0, ingested.output
    assert ingested.stderr.count(WARNING) == 1

    monkeypatch.setattr(config, "_warned", set())
    # ask reads the settings several times (store, model, research options): one warning.
    asked = run("ask", "Why are glaciers retreating?", "--db", db, "--model", "offline")
    assert asked.exit_code == 0, asked.output
    assert asked.stderr.count("unknown setting") == 1 and WARNING in asked.stderr
    assert "retreating" in asked.stdout

    again = run("docs", "list", "--db", db)  # the same process: warned already
    assert again.exit_code == 0 and "unknown setting" not in again.stderr


def test_config_lists_unknown_variables_with_their_closest_known_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DOCUCHAT_EMBEDER", "none")
    monkeypatch.setenv("docuchat_max_file", "3")  # any case, as the real ones are read
    monkeypatch.setenv("DOCUCHAT_XYZZY", "1")

    shown = run_json("config")
    table = run("config").stdout

    assert shown["unknown_variables"] == {
        "DOCUCHAT_EMBEDER": "DOCUCHAT_EMBEDDER",
        "DOCUCHAT_XYZZY": None,
        "docuchat_max_file": "DOCUCHAT_MAX_FILES",
    }
    assert f"{WARNING}: ignored" in table
    assert "unknown setting DOCUCHAT_XYZZY: ignored" in table


def read_variables() -> set[str]:
    """Every DOCUCHAT_* name docuchat's source reads or documents."""
    source = Path(docuchat.__file__).parent
    found = {
        name
        for path in source.rglob("*.py")
        for name in re.findall(r"DOCUCHAT_[A-Z][A-Z0-9_]*[A-Z0-9]", path.read_text())
    }
    assert {"DOCUCHAT_HOME", "DOCUCHAT_OCR", "DOCUCHAT_READ_TIMEOUT"} <= found
    return found


def test_no_variable_docuchat_reads_is_reported(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What the source names, and every setting as `docuchat serve --workers` exports them.
    environment = ServerSettings(home=home, db=str(home / "x.db")).environment()
    for name in read_variables() - set(environment):
        monkeypatch.setenv(name, "tesseract" if name == config.OCR_VARIABLE else "1")
    for name, value in environment.items():
        monkeypatch.setenv(name, value)

    assert unknown_variables(Settings) == unknown_variables(ServerSettings) == []
    shown = run("config", "--json")
    assert shown.exit_code == 0, shown.output
    assert "unknown setting" not in shown.stderr
