"""Choosing an embedder by spec, without loading any model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from docuchat.embeddings import get_embedder
from docuchat.embeddings.sentence_transformer import native_bfloat16
from docuchat.embeddings.weights import find_minilm_weights, installed
from docuchat.errors import ConfigError

HEAVY = ("torch", "transformers", "sentence_transformers", "onnxruntime", "tokenizers", "onnx")
LOCAL = find_minilm_weights() is not None and installed(*HEAVY)


def test_none_means_bm25_only() -> None:
    assert get_embedder("none") is None


@pytest.mark.parametrize("spec", ["", "minilm-gpu", "openai", "openai:", "bge"])
def test_unknown_specs_name_the_choices(spec: str) -> None:
    with pytest.raises(ConfigError, match="minilm, minilm-bf16, minilm-onnx, openai:<model>"):
        get_embedder(spec)


_CHOOSE = """
import json, pathlib, sys
from docuchat.embeddings import get_embedder
folder, purpose = pathlib.Path(sys.argv[1]), sys.argv[2]
chosen = [get_embedder(spec, purpose=purpose, cache_dir=folder) for spec in sys.argv[3:]]
heavy = [m for m in {heavy!r} if m in sys.modules]
print(json.dumps({{
    "names": [e and e.name for e in chosen],
    "spaces": [e and e.space for e in chosen],
    "imported": heavy,
}}))
"""


def choose_in_fresh_process(
    tmp_path: Path, *specs: str, purpose: str = "documents"
) -> dict[str, list[str | None]]:
    script = _CHOOSE.format(heavy=HEAVY)
    command = [sys.executable, "-c", script, str(tmp_path), purpose, *specs]
    result: dict[str, list[str | None]] = json.loads(
        subprocess.run(command, capture_output=True, text=True, check=True).stdout
    )
    return result


def test_choosing_an_embedder_imports_no_model_library(tmp_path: Path) -> None:
    specs = ["hash", "none", "auto"] + (["minilm", "minilm-bf16", "minilm-onnx"] if LOCAL else [])
    chosen = choose_in_fresh_process(tmp_path, *specs)
    assert chosen["imported"] == []
    assert chosen["names"][:2] == ["hash-256", None]


@pytest.mark.skipif(not LOCAL, reason="needs the embed extra (MiniLM weights, onnxruntime, torch)")
def test_auto_picks_the_fastest_local_model(tmp_path: Path) -> None:
    fastest = "all-MiniLM-L6-v2-bf16" if native_bfloat16() else "all-MiniLM-L6-v2-onnx-int8"
    chosen = choose_in_fresh_process(tmp_path, "auto", "minilm", "minilm-bf16", "minilm-onnx")
    assert chosen["names"] == [
        fastest,
        "all-MiniLM-L6-v2",
        "all-MiniLM-L6-v2-bf16",
        "all-MiniLM-L6-v2-onnx-int8",
    ]


@pytest.mark.skipif(not LOCAL, reason="needs the embed extra (MiniLM weights, onnxruntime, torch)")
def test_auto_embeds_questions_with_the_int8_model_in_the_same_space(tmp_path: Path) -> None:
    # A question is one text in a fresh process: onnxruntime starts in a fraction of the
    # seconds PyTorch takes to import, and its vectors search the bfloat16 ones.
    queries = choose_in_fresh_process(tmp_path, "auto", purpose="queries")
    documents = choose_in_fresh_process(tmp_path, "auto", "minilm", "minilm-bf16", "minilm-onnx")
    assert queries["names"] == ["all-MiniLM-L6-v2-onnx-int8"]
    assert queries["imported"] == []
    assert set(queries["spaces"] + documents["spaces"]) == {"all-MiniLM-L6-v2"}


def test_other_models_are_other_spaces() -> None:
    hashed = get_embedder("hash:32")
    assert hashed is not None and hashed.space == hashed.name == "hash-32"


@pytest.mark.parametrize(
    ("flags", "native"),
    [
        ("fpu sse avx2 avx512f amx_bf16 amx_tile amx_int8", True),
        ("fpu avx2 avx512f avx512_bf16", True),
        ("fpu avx2 avx512f avx512_vnni", False),
    ],
)
def test_native_bfloat16_reads_the_cpu_flags(tmp_path: Path, flags: str, native: bool) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: {flags}\n")
    assert native_bfloat16(cpuinfo) is native
    assert native_bfloat16(tmp_path / "absent") is False


@pytest.mark.parametrize("spec", ["minilm", "minilm-bf16", "minilm-onnx"])
def test_local_models_without_weights_say_how_to_install(
    spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As on an install without the embed extra, whether or not this one has the weights.
    monkeypatch.setattr("docuchat.embeddings.find_minilm_weights", lambda: None)
    with pytest.raises(ConfigError, match=r"docuchat\[embed\]"):
        get_embedder(spec)
