"""A real OpenAI-compatible model server on 127.0.0.1 that misbehaves on demand.

``ModelServer(behaviour)`` answers each ``POST /v1/chat/completions`` with what
``behaviour(request body)`` returns: an answer, a tool call, an HTTP error, or
silence (the request hangs until the client goes away). Streamed requests get
server-sent events, others one JSON completion. A ``GET`` (the adapter's probe of
what the server is) is left unanswered (``Hang``), or the connection dropped
(``Drop``), when ``get`` says so; else it is "not implemented". Used wherever the
transport matters: the CLI's exit codes, the server's statuses, time limits.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

USAGE = '{"prompt_tokens": 10, "completion_tokens": 5}'


@dataclass(frozen=True)
class Answer:
    text: str
    escaped: bool = False
    """``text`` is already JSON string content, written raw (so ``\\ud800`` escapes can reach
    the client as such)."""
    usage: str = USAGE
    """The ``usage`` object, raw JSON."""


@dataclass(frozen=True)
class CallTool:
    name: str
    arguments: str
    """The raw arguments text, valid JSON or not."""


@dataclass(frozen=True)
class Fail:
    status: int
    message: str


@dataclass(frozen=True)
class Hang:
    """Never answer; wait (at most a minute) for the client to hang up."""


@dataclass(frozen=True)
class Drop:
    """Close the connection without a word."""


Behaviour = Answer | CallTool | Fail | Hang


@dataclass(frozen=True)
class Received:
    """One request line, and the connection (the client's port) it came on."""

    connection: int
    method: str
    path: str


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 drops concurrent connects, retried a second later


class ModelServer:
    def __init__(
        self, behaviour: Callable[[dict[str, Any]], Behaviour], *, get: Hang | Drop | None = None
    ) -> None:
        self.behaviour = behaviour
        self.get = get
        self.requests: list[dict[str, Any]] = []
        self.received: list[Received] = []
        self.get_arrived = threading.Event()
        self.request_arrived = threading.Event()
        self.client_gone = threading.Event()
        self._httpd = _HTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def parse_request(self) -> bool:
                parsed = super().parse_request()
                if parsed:
                    port = self.client_address[1]
                    server.received.append(Received(port, self.command, self.path))
                return parsed

            def do_GET(self) -> None:
                server.get_arrived.set()
                if server.get is None:
                    self.send_error(501)
                elif isinstance(server.get, Hang):
                    wait_for_hang_up(self.connection, 60)
                self.close_connection = True

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                server.requests.append(body)
                server.request_arrived.set()
                behaviour = server.behaviour(body)
                if isinstance(behaviour, Hang):
                    if wait_for_hang_up(self.connection, 60):
                        server.client_gone.set()
                    self.close_connection = True
                elif isinstance(behaviour, Fail):
                    error = {"error": {"message": behaviour.message, "type": "server_error"}}
                    self._send(behaviour.status, "application/json", json.dumps(error).encode())
                elif body.get("stream"):
                    events = [_chunk(*parts) for parts in _deltas(behaviour)] + ["[DONE]"]
                    data = "".join(f"data: {e}\n\n" for e in events).encode()
                    self._send(200, "text/event-stream", data)
                else:
                    self._send(200, "application/json", _completion(behaviour).encode())

            def _send(self, status: int, content_type: str, data: bytes) -> None:
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def wait_for_hang_up(connection: socket.socket, seconds: float) -> bool:
    """Whether the client closed ``connection`` within ``seconds`` (sending nothing more)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        readable, _, _ = select.select([connection], [], [], 0.05)
        if readable and not connection.recv(1, socket.MSG_PEEK):
            return True
    return False


def _text_json(answer: Answer) -> str:
    return f'"{answer.text}"' if answer.escaped else json.dumps(answer.text)


def _tool_call_json(call: CallTool) -> str:
    function = {"name": call.name, "arguments": call.arguments}
    return json.dumps([{"index": 0, "id": "call_1", "type": "function", "function": function}])


def _completion(behaviour: Answer | CallTool) -> str:
    if isinstance(behaviour, Answer):
        message, finish = f'{{"role": "assistant", "content": {_text_json(behaviour)}}}', "stop"
        usage = behaviour.usage
    else:
        calls = _tool_call_json(behaviour)
        message = f'{{"role": "assistant", "content": null, "tool_calls": {calls}}}'
        finish, usage = "tool_calls", USAGE
    return (
        f'{{"id": "x", "object": "chat.completion", "model": "m", "choices": [{{"index": 0, '
        f'"message": {message}, "finish_reason": "{finish}"}}], "usage": {usage}}}'
    )


def _deltas(behaviour: Answer | CallTool) -> list[tuple[str, str | None, str]]:
    """(delta, finish reason, usage) of each chunk."""
    if isinstance(behaviour, Answer):
        text = f'{{"content": {_text_json(behaviour)}}}'
        return [(text, None, "null"), ("{}", "stop", behaviour.usage)]
    calls = f'{{"tool_calls": {_tool_call_json(behaviour)}}}'
    return [(calls, None, "null"), ("{}", "tool_calls", USAGE)]


def _chunk(delta: str, finish: str | None, usage: str) -> str:
    reason = json.dumps(finish)
    return (
        '{"id": "x", "object": "chat.completion.chunk", "model": "m", "choices": '
        f'[{{"index": 0, "delta": {delta}, "finish_reason": {reason}}}], "usage": {usage}}}'
    )
