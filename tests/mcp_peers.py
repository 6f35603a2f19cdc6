"""Real MCP peers for the tests: the npm reference servers and the Inspector's CLI.

`make system-deps` installs them (pinned) into .cache/npm; the tests that need
them are skipped, with that hint, where they are missing.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from docuchat.config import MCPServerConfig

ROOT = Path(__file__).parents[1]
NPM_BIN = ROOT / ".cache" / "npm" / "node_modules" / ".bin"
EVERYTHING = NPM_BIN / "mcp-server-everything"
MEMORY = NPM_BIN / "mcp-server-memory"
INSPECTOR = NPM_BIN / "mcp-inspector"
DEMO_SERVER = ROOT / "tests" / "agent" / "mcp_demo_server.py"


def requires(*programs: Path) -> pytest.MarkDecorator:
    missing = [p.name for p in programs if not p.exists()]
    return pytest.mark.skipif(
        bool(missing), reason=f"run `make system-deps` to install {', '.join(missing)} (npm)"
    )


def demo_server(**options: float) -> MCPServerConfig:
    return MCPServerConfig(command=sys.executable, args=(str(DEMO_SERVER),), **options)


def memory_server(folder: Path, **options: float) -> MCPServerConfig:
    """server-memory keeping its knowledge graph in ``folder``."""
    env = {"MEMORY_FILE_PATH": str(folder / "memory.jsonl")}
    return MCPServerConfig(command=str(MEMORY), env=env, **options)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {timeout}s")


@contextmanager
def everything_over_http() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """server-everything serving streamable HTTP on a free port: its /mcp URL and process."""
    port = free_port()
    process = subprocess.Popen(
        [str(EVERYTHING), "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        process.kill()
        process.wait()


def children() -> dict[int, str]:
    """This process's child processes: pid -> command line."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == os.getpid():
            found[int(entry.name)] = command
    return found


def kill_child(marker: str) -> None:
    """Kill (SIGKILL) the one child process whose command line contains ``marker``."""
    [pid] = [pid for pid, command in children().items() if marker in command]
    os.kill(pid, signal.SIGKILL)
