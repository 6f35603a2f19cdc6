"""The README's sample output is what ``make demo`` prints: its two commands, run here in a
fresh home with the default settings (the real embedders, and ``auto`` finding no model
server, so the offline model)."""

from __future__ import annotations

import re
import shutil
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from docuchat.cli.main import cli
from docuchat.embeddings.sentence_transformer import native_bfloat16
from docuchat.models import auto
from docuchat.models.auto import LOCAL_SERVERS

ROOT = Path(__file__).parents[1]
QUESTION = "How many days of annual leave do full-time employees get?"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not native_bfloat16(),
        reason="the README's output was made where auto embeds documents in bfloat16",
    ),
]


def readme_demo() -> list[str]:
    """The lines of the README's ``$ make demo`` block, after its ``...``."""
    text = (ROOT / "README.md").read_text()
    block = text.split("```text\n$ make demo\n...\n", 1)[1].split("\n```", 1)[0]
    return block.splitlines()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port  # nobody listens once the socket is closed


def timeless(lines: list[str]) -> list[str]:
    """Lines with their durations blanked: "471 ms", "0.8 s"."""
    return [re.sub(r"\b\d+(\.\d+)? (ms|s)\b", "N \\2", line) for line in lines]


def test_the_readme_shows_what_make_demo_prints(
    tmp_path: Path, onnx_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "demo"
    shutil.copytree(onnx_models, home / "models")  # the export, made once for the session
    monkeypatch.setenv("DOCUCHAT_HOME", str(home))
    for name in ("DOCUCHAT_EMBEDDER", "DOCUCHAT_MODEL", "DOCUCHAT_DB", "DOCUCHAT_OWNER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "200")  # a terminal wide enough for the README's lines
    # Whatever runs on this machine, auto finds no model server (as on a fresh one).
    nobody = tuple((name, f"http://127.0.0.1:{free_port()}/v1") for name, _url in LOCAL_SERVERS)
    monkeypatch.setattr(auto, "LOCAL_SERVERS", nobody)

    runner = CliRunner()
    ingested = runner.invoke(cli, ["ingest", str(ROOT / "samples" / "documents")])
    asked = runner.invoke(cli, ["ask", QUESTION])

    assert ingested.exit_code == asked.exit_code == 0, ingested.output + asked.output
    printed = (ingested.stdout + asked.stdout).splitlines()
    assert timeless(printed) == timeless(readme_demo())
