"""A real HTTP server on 127.0.0.1 that answers with scripted replies and records requests."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from docuchat.corpus.ingest import ingest_paths
from docuchat.models.anthropic import AnthropicModel
from docuchat.models.http import RetryPolicy
from docuchat.models.openai import OpenAIChatModel
from docuchat.store import Store, open_store
from model_servers import wait_for_hang_up


@dataclass(frozen=True)
class Reply:
    """One scripted answer. ``chunks`` are sent with chunked encoding, ``pause`` apart."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    chunks: tuple[bytes, ...] = ()
    pause: float = 0.0
    delay: float = 0.0  # before the status line
    drop: bool = False  # close the connection without answering
    truncate: bool = False  # close the connection after the chunks, before the body's end
    hang: bool = False  # never answer; wait for the client to go away

    @classmethod
    def json(cls, payload: Any, status: int = 200, **headers: str) -> Reply:
        headers = {"content-type": "application/json", **headers}
        return cls(status=status, body=json.dumps(payload).encode(), headers=headers)

    @classmethod
    def sse(cls, events: list[str], pause: float = 0.0) -> Reply:
        return cls(
            headers={"content-type": "text/event-stream"},
            chunks=tuple(f"{event}\n\n".encode() for event in events),
            pause=pause,
        )


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hanging up on kept-alive connections is normal here, not worth a traceback.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class ScriptedServer:
    """Answers each request with the next queued reply (HTTP 599 when none is left)."""

    def __init__(self) -> None:
        # Fixed answers by (method, path), not consumed: a server's GET routes, say.
        self.routes: dict[tuple[str, str], Reply] = {}
        self.replies: deque[Reply] = deque()
        self.requests: list[Received] = []
        self.request_arrived = threading.Event()
        self.client_gone = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), _handler(self))
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def queue(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def reset(self) -> None:
        self.routes.clear()
        self.replies.clear()
        self.requests.clear()
        self.request_arrived.clear()
        self.client_gone.clear()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self._answer("GET")

        def do_POST(self) -> None:
            self._answer("POST")

        def _answer(self, method: str) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            headers = {k.lower(): v for k, v in self.headers.items()}
            server.requests.append(Received(method, self.path, headers, body))
            server.request_arrived.set()
            reply = server.routes.get((method, self.path)) or self._next(method)
            if reply.hang:
                self._wait_for_client_to_leave()
                return
            time.sleep(reply.delay)
            if reply.drop:
                self.close_connection = True
                return
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if reply.chunks:
                self._send_chunked(reply)
            else:
                self.send_header("content-length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)

        @staticmethod
        def _next(method: str) -> Reply:
            if method == "GET":
                return Reply(404, b"not found")
            return server.replies.popleft() if server.replies else Reply(599, b"no reply queued")

        def _send_chunked(self, reply: Reply) -> None:
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            try:
                for chunk in reply.chunks:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                    time.sleep(reply.pause)
                if reply.truncate:
                    self.close_connection = True
                    return
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                server.client_gone.set()

        def _wait_for_client_to_leave(self) -> None:
            if wait_for_hang_up(self.connection, 10):
                server.client_gone.set()
            self.close_connection = True

    return Handler


@pytest.fixture(scope="session")
def _scripted_server() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    yield server
    server.close()


SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "documents"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """The sample documents ingested for owner "local", for whole research runs."""
    db = open_store(tmp_path_factory.mktemp("samples") / "docuchat.db")
    ingest_paths(db, "local", [SAMPLES])
    yield db
    db.close()


@pytest.fixture
def server(_scripted_server: ScriptedServer) -> Iterator[ScriptedServer]:
    _scripted_server.reset()
    yield _scripted_server
    _scripted_server.reset()


class RecordedSleeps:
    """An injectable sleep that records the waits instead of sleeping."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def sleeps() -> RecordedSleeps:
    return RecordedSleeps()


@pytest.fixture
def fast_retry(sleeps: RecordedSleeps) -> RetryPolicy:
    """Three retries with recorded, not slept, waits; jitter pinned to its ceiling."""
    return RetryPolicy(
        max_retries=3, base_delay=0.5, max_delay=30.0, sleep=sleeps, jitter=lambda ceiling: ceiling
    )


def completion(text: str | None = "ok", **message: Any) -> dict[str, Any]:
    """A minimal OpenAI chat completion body."""
    return {
        "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text, **message}}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3},
    }


def anthropic_message(text: str = "ok") -> dict[str, Any]:
    """A minimal Anthropic Messages response body."""
    return {
        "model": "claude-test",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 12, "output_tokens": 3},
    }


@pytest.fixture
def openai_model(server: ScriptedServer, fast_retry: RetryPolicy) -> OpenAIChatModel:
    return OpenAIChatModel(
        "test-model", api_key="sk-test", base_url=f"{server.url}/v1", retry=fast_retry
    )


@pytest.fixture
def anthropic_model(server: ScriptedServer, fast_retry: RetryPolicy) -> AnthropicModel:
    return AnthropicModel(
        "claude-test", api_key="sk-ant-test", base_url=server.url, retry=fast_retry
    )
