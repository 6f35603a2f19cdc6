"""A real OpenAI-compatible ``/v1/embeddings`` server on 127.0.0.1.

It answers each text with ``[len(text), 1.0, 0.0]`` (deliberately not unit
length) and lists the answers in reverse order with their ``index``, as real
servers may. Queued replies are sent first, one per request.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


class EmbeddingsServer:
    def __init__(self) -> None:
        self.requests: list[tuple[dict[str, str], Any]] = []  # (headers, JSON body)
        self.queued: deque[tuple[int, str, dict[str, str]]] = deque()  # (status, body, headers)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        serve = {"poll_interval": 0.02}  # shutdown() waits up to one interval
        threading.Thread(target=self._httpd.serve_forever, kwargs=serve, daemon=True).start()

    def queue(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        text = body if isinstance(body, str) else json.dumps(body)
        self.queued.append((status, text, headers or {}))

    @property
    def inputs(self) -> list[list[str]]:
        return [body["input"] for _, body in self.requests]

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def answer(texts: list[str]) -> dict[str, Any]:
    rows = [{"index": i, "embedding": [float(len(t)), 1.0, 0.0]} for i, t in enumerate(texts)]
    return {"object": "list", "data": rows[::-1], "model": "m"}


def _handler(server: EmbeddingsServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            server.requests.append((dict(self.headers.items()), body))
            if server.queued:
                status, text, headers = server.queued.popleft()
            elif self.path != "/v1/embeddings":
                status, text, headers = 404, '{"error": {"message": "no such route"}}', {}
            else:
                status, text, headers = 200, json.dumps(answer(body["input"])), {}
            payload = text.encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def embeddings_server() -> Iterator[EmbeddingsServer]:
    server = EmbeddingsServer()
    yield server
    server.close()
