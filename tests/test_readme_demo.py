"""The README's sample output is what ``make demo`` prints: its two commands, run here in a
fresh home with the default settings (the real embedders, and ``auto`` finding no model
server, so the offline model). The README's run embedded the documents in bfloat16, as
``auto`` does where the CPU multiplies it natively; elsewhere ``auto`` embeds them with the
int8 ONNX export, which prints the same but for the embedder's name, so that the README is
checked on every machine."""

from __future__ import annotations

import re
import shutil
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from docuchat import embeddings
from docuchat.cli.main import cli
from docuchat.embeddings import OnnxEmbedder
from docuchat.embeddings.sentence_transformer import native_bfloat16
from docuchat.models import auto
from docuchat.models.auto import LOCAL_SERVERS

ROOT = Path(__file__).parents[1]
QUESTION = "How many days of annual leave do full-time employees get?"

pytestmark = pytest.mark.slow
README_EMBEDDER = "all-MiniLM-L6-v2-bf16"  # as the README prints it


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


@pytest.mark.parametrize("bfloat16", [True, False], ids=["bfloat16", "onnx"])
def test_the_readme_shows_what_make_demo_prints(
    bfloat16: bool, tmp_path: Path, onnx_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if bfloat16 and not native_bfloat16():
        pytest.skip("this CPU does not multiply bfloat16 natively (auto embeds with ONNX)")
    if not bfloat16:
        monkeypatch.setattr(embeddings, "native_bfloat16", lambda: False)
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
    expected = readme_demo()
    if not bfloat16:
        expected = [line.replace(README_EMBEDDER, OnnxEmbedder.name) for line in expected]
    assert timeless(printed) == timeless(expected)
