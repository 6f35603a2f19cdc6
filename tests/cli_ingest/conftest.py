"""The CLI through click's runner in a private home, and a folder of real files to ingest:
good ones of every text format, and bad ones."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from docuchat.cli.main import cli

REAL_PDFS = Path(__file__).parents[1] / "corpus" / "fixtures" / "real-pdfs"

GOOD = {
    "notes.md": "# Field notes\n\nAlpine glaciers are retreating as summers warm.\n\n"
    "Meltwater feeds the rivers below.",
    "guide/volcanoes.txt": "Volcanoes erupt when magma rises through the crust.",
    "guide/tides.html": "<html><head><title>Tides</title></head><body>"
    "<p>Tides follow the moon.</p></body></html>",
}
BAD_REASONS = {
    "locked.pdf": "password-protected",
    "broken.pdf": "corrupt file",
    "empty.txt": "empty document",
    "clip.gif": "unsupported file type",
}


@pytest.fixture
def good_folder(tmp_path: Path) -> Path:
    """Three good text files (one in a subfolder), a real one-page PDF and a hidden file."""
    root = tmp_path / "docs"
    for name, text in GOOD.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    shutil.copy(REAL_PDFS / "crazyones-pdfa.pdf", root / "crazyones.pdf")
    (root / ".cache").mkdir()
    (root / ".cache" / "hidden.txt").write_text("never ingested")
    return root


@pytest.fixture
def mixed_folder(good_folder: Path) -> Path:
    """The good folder plus files that must be skipped with a reason."""
    shutil.copy(REAL_PDFS / "libreoffice-writer-password.pdf", good_folder / "locked.pdf")
    (good_folder / "broken.pdf").write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 50)
    (good_folder / "empty.txt").write_text("")
    (good_folder / "clip.gif").write_bytes(b"GIF89a")  # a type not read: listed, with why
    return good_folder


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private DOCUCHAT_HOME, so no user config or database is ever touched, and no
    embedder unless a test names one (the default, auto, would load a real model)."""
    path = tmp_path / "home"
    monkeypatch.setenv("DOCUCHAT_HOME", str(path))
    monkeypatch.setenv("DOCUCHAT_EMBEDDER", "none")
    for name in ("DOCUCHAT_DB", "DOCUCHAT_OWNER"):
        monkeypatch.delenv(name, raising=False)
    return path


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "cli.db")


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def run_json(*args: str) -> Any:
    result = run(*args, "--json")
    return json.loads(result.stdout)
