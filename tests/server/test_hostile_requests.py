"""Hostile requests against a real server (uvicorn on a loopback port): every one is a 4xx
with a message, refused as early as it can be, and none holds a connection.

Where the transport is the point (a body never sent, sent in chunks, or that stops
half-way) the requests are written by hand on a raw socket.
"""

from __future__ import annotations

import json
import select
import socket
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi import FastAPI

from docuchat.models.scripted import ScriptedModel
from docuchat.server import ServerSettings, create_app
from docuchat.server.openai_schemas import (
    CONVERSATION_MAX_CHARS,
    MESSAGE_MAX_CHARS,
    MESSAGES_MAX,
)
from docuchat.server.schemas import QUESTION_MAX_CHARS

from .conftest import Keys, LiveServer, auth

JSON_CAP = 64 * 1024
UPLOAD_CAP = 256 * 1024
READ_TIMEOUT = 1.0

MALFORMED: dict[str, bytes] = {
    "NaN": b'{"question": NaN, "title": NaN, "model": "docuchat", "messages": NaN}',
    "Infinity": b'{"question": Infinity, "stream": false}',
    "-Infinity": b'{"question": "Value?", "conversation_id": -Infinity}',
    "lone surrogate": b'{"question": "Value \\ud800?", "title": "\\udfff", "model": "docuchat",'
    b' "messages": [{"role": "user", "content": "\\ud800"}]}',
    "non-UTF-8": b'{"question": "Value \xff\xfe?", "title": "\xc3("}',
    "truncated": b'{"question": "Value?"',
    "deeply nested": b"[" * 30_000 + b"]" * 30_000,
    "not JSON": b"question=Value%3F",
}


@pytest.fixture
def hostile_settings(settings: ServerSettings) -> ServerSettings:
    return settings.model_copy(
        update={
            "max_json_bytes": JSON_CAP,
            "max_upload_bytes": UPLOAD_CAP,
            "read_timeout": READ_TIMEOUT,
        }
    )


@pytest.fixture
def server(hostile_settings: ServerSettings, model: ScriptedModel) -> Iterator[tuple[str, FastAPI]]:
    app = create_app(hostile_settings, model=model)
    with LiveServer(app) as url:
        yield url, app


@pytest.fixture
def url(server: tuple[str, FastAPI]) -> str:
    return server[0]


def operations(app: FastAPI) -> list[tuple[str, str]]:
    """(method, path) of every operation, path parameters filled in."""
    paths = app.openapi()["paths"]
    found = [
        (m.upper(), p.replace("{", "").replace("}", "")) for p, ops in paths.items() for m in ops
    ]
    assert len(found) >= 15
    return sorted(found)


def error_message(response: httpx.Response) -> str:
    """The message of an error in either shape; asserts the shape matches the route."""
    body = response.json()
    if urlsplit(str(response.url)).path.startswith("/v1/"):
        assert set(body["error"]) == {"message", "type", "param", "code"}, body
        message: str = body["error"]["message"]
    else:
        message = body["detail"] if isinstance(body["detail"], str) else json.dumps(body["detail"])
    return message


# -- malformed bodies ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", MALFORMED)
def test_a_malformed_body_is_a_4xx_with_a_message_on_every_route(
    server: tuple[str, FastAPI], live_keys: Keys, kind: str
) -> None:
    url, app = server
    with httpx.Client(base_url=url, timeout=10) as client:
        for method, path in operations(app):
            headers = {**auth(live_keys.alice), "content-type": "application/json"}
            response = client.request(method, path, content=MALFORMED[kind], headers=headers)
            assert 400 <= response.status_code < 500, (method, path, response.text)
            assert error_message(response), (method, path)
        assert client.get("/health").status_code == 200


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("NaN", "NaN is not a JSON number"),
        ("lone surrogate", "lone surrogate"),
        ("non-UTF-8", "not UTF-8"),
    ],
)
@pytest.mark.parametrize("path", ["/api/ask", "/v1/chat/completions"])
def test_a_malformed_streamed_request_is_refused_before_any_stream(
    url: str, live_keys: Keys, kind: str, said: str, path: str
) -> None:
    body = MALFORMED[kind].replace(b"{", b'{"stream": true, ', 1)
    headers = {**auth(live_keys.alice), "content-type": "application/json"}
    response = httpx.post(url + path, content=body, headers=headers, timeout=10)
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/json"
    assert said in error_message(response)


def test_the_400_says_what_is_wrong(url: str, live_keys: Keys) -> None:
    headers = {**auth(live_keys.alice), "content-type": "application/json"}
    said = {
        kind: error_message(httpx.post(f"{url}/api/ask", content=body, headers=headers))
        for kind, body in MALFORMED.items()
        if kind != "not JSON"
    }
    assert said == {
        "NaN": "the body is not valid JSON: NaN is not a JSON number",
        "Infinity": "the body is not valid JSON: Infinity is not a JSON number",
        "-Infinity": "the body is not valid JSON: -Infinity is not a JSON number",
        "lone surrogate": "the body holds a lone surrogate escape"
        " (\\ud800-\\udfff without its pair)",
        "non-UTF-8": "the body is not UTF-8 (byte 20)",
        "truncated": "the body is not valid JSON:"
        " Expecting ',' delimiter: line 1 column 22 (char 21)",
        "deeply nested": "the body is not valid JSON: nested too deeply",
    }
    plain = httpx.post(
        f"{url}/api/ask",
        content=b"question=x",
        headers={**auth(live_keys.alice)} | {"content-type": "application/x-www-form-urlencoded"},
    )
    assert (plain.status_code, error_message(plain)) == (
        415,
        "send the body as JSON (Content-Type: application/json)",
    )


def test_a_surrogate_pair_is_a_character_not_an_error(url: str, live_keys: Keys) -> None:
    response = httpx.post(
        f"{url}/api/conversations",
        content=b'{"title": "Notes \\ud83d\\udcdd"}',
        headers={**auth(live_keys.alice), "content-type": "application/json"},
    )
    assert response.status_code == 201
    assert response.json()["title"] == "Notes \N{MEMO}"


# -- refused on the headers, before the body --------------------------------------------------


@dataclass
class RawReply:
    status: int
    headers: dict[str, str]
    body: bytes
    seconds: float
    """From the end of the request's head to the end of the reply."""
    closed: bool
    """The server closed the connection after the reply."""

    def json(self) -> Any:
        return json.loads(self.body)


def exchange(url: str, head: str, parts: Sequence[bytes] = (), *, wait: float = 5.0) -> RawReply:
    """Send a request's head and then ``parts``, stopping once the server answers; read the
    reply until the server closes the connection (or ``wait`` seconds pass).

    The parts go out 20 ms apart so that a server that answers early has read all that was
    sent: a close with unread data would reset the connection and lose the reply.
    """
    address = urlsplit(url)
    with socket.create_connection((address.hostname, address.port), timeout=wait) as sock:
        sock.sendall(head.replace("\n", "\r\n").encode() + b"\r\n")
        started = time.monotonic()
        for part in parts:
            sock.sendall(part)
            time.sleep(0.02)
            if select.select([sock], [], [], 0)[0]:
                break
        received, closed = b"", False
        try:
            while chunk := sock.recv(65536):
                received += chunk
            closed = True
        except TimeoutError:
            pass
        seconds = time.monotonic() - started
    head_bytes, _, body = received.partition(b"\r\n\r\n")
    status_line, *header_lines = head_bytes.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in header_lines)
    return RawReply(int(status_line.split()[1]), headers, body, seconds, closed)


def head(method: str, path: str, key: str | None, **headers: str) -> str:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    if key is not None:
        lines.append(f"Authorization: Bearer {key}")
    lines += [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
    return "\n".join(lines) + "\n"


HUGE = str(300 * 1024 * 1024)


@pytest.mark.parametrize(
    ("path", "key", "status", "message"),
    [
        ("/api/ask", None, 401, "missing API key"),
        ("/api/ask", "not-a-key", 401, "malformed API key"),
        ("/v1/chat/completions", None, 401, "missing API key"),
        ("/api/ask", "alice", 413, f"the body has {int(HUGE):,} bytes, more than the limit of"),
        ("/api/documents", "alice", 413, f"more than the limit of {UPLOAD_CAP:,}"),
        ("/v1/chat/completions", "alice", 413, f"more than the limit of {JSON_CAP:,}"),
    ],
)
def test_a_body_is_refused_on_its_headers_without_being_read(
    url: str, live_keys: Keys, path: str, key: str | None, status: int, message: str
) -> None:
    key = live_keys.alice if key == "alice" else key
    content_type = (
        "multipart/form-data; boundary=b" if path == "/api/documents" else "application/json"
    )
    reply = exchange(url, head("POST", path, key, Content_Length=HUGE, Content_Type=content_type))
    assert reply.status == status
    assert reply.seconds < 1, "the server waited for a body it had no need of"
    assert reply.closed, "the unread body must not be taken for the next request"
    body = reply.json()
    said = body["error"]["message"] if path.startswith("/v1/") else body["detail"]
    assert message in said


async def test_a_malformed_length_is_a_400(client: httpx.AsyncClient, keys: Keys) -> None:
    # uvicorn refuses such a request itself; the guard does too, behind any other server.
    headers = {**auth(keys.alice), "content-length": "12abc"}
    response = await client.post("/api/ask", content=b"", headers=headers)
    assert response.status_code == 400
    assert response.json() == {"detail": "Content-Length is not a number of bytes: '12abc'"}


def chunked(data: bytes, size: int = 16 * 1024) -> list[bytes]:
    parts = [
        b"%x\r\n%s\r\n" % (len(data[i : i + size]), data[i : i + size])
        for i in range(0, len(data), size)
    ]
    return [*parts, b"0\r\n\r\n"]


def test_a_chunked_json_body_is_capped_while_it_is_read(url: str, live_keys: Keys) -> None:
    question = json.dumps({"question": "x" * (JSON_CAP + 1000)}).encode()
    reply = exchange(
        url,
        head("POST", "/api/ask", live_keys.alice, Transfer_Encoding="chunked"),
        chunked(question),
    )
    assert reply.status == 413
    assert reply.json() == {"detail": f"the body is larger than the limit of {JSON_CAP:,} bytes"}
    assert reply.closed


def multipart(name: str, data: bytes) -> bytes:
    return (
        (
            f'--b\r\nContent-Disposition: form-data; name="files"; filename="{name}"\r\n'
            "Content-Type: text/plain\r\n\r\n"
        ).encode()
        + data
        + b"\r\n--b--\r\n"
    )


def upload_head(key: str, **headers: str) -> str:
    return head(
        "POST", "/api/documents", key, Content_Type="multipart/form-data; boundary=b", **headers
    )


def test_an_upload_without_a_length_is_refused_on_its_headers(url: str, live_keys: Keys) -> None:
    """Its cap and the upload queue's room are judged by its length: a chunked upload is
    refused before its body is read."""
    reply = exchange(url, upload_head(live_keys.alice, Transfer_Encoding="chunked"))
    assert reply.status == 411
    assert reply.json() == {"detail": "send the upload's Content-Length"}
    assert reply.seconds < 1 and reply.closed


# -- slow bodies ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sent",
    [
        b"",
        b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n",
        b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /he",
    ],
    ids=["nothing", "half a head", "half the next head"],
)
def test_a_head_that_stops_arriving_closes_the_connection(url: str, sent: bytes) -> None:
    address = urlsplit(url)
    with socket.create_connection(
        (address.hostname, address.port), timeout=READ_TIMEOUT + 5
    ) as sock:
        sock.sendall(sent)
        started = time.monotonic()
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
        seconds = time.monotonic() - started
    assert received.count(b"HTTP/1.1 200 ") == sent.count(b"\r\n\r\n")
    assert seconds < READ_TIMEOUT + 1


def test_a_json_body_that_stops_arriving_is_cut_off(url: str, live_keys: Keys) -> None:
    reply = exchange(
        url,
        head(
            "POST",
            "/api/ask",
            live_keys.alice,
            Content_Length="100",
            Content_Type="application/json",
        ),
        [b'{"question": "Val'],
    )
    assert reply.status == 408
    assert reply.json() == {"detail": f"the body did not arrive within {READ_TIMEOUT:g} s"}
    assert READ_TIMEOUT <= reply.seconds < READ_TIMEOUT + 1.5 and reply.closed


def test_a_trickled_json_body_must_still_arrive_within_the_deadline(
    url: str, live_keys: Keys
) -> None:
    """A byte every 50 ms never pauses long, but the whole body is due within the deadline."""
    address = urlsplit(url)
    with socket.create_connection((address.hostname, address.port)) as sock:
        request = head("POST", "/api/ask", live_keys.alice, Content_Length="1000")
        sock.sendall(request.replace("\n", "\r\n").encode() + b"\r\n")
        sock.setblocking(False)
        started, received = time.monotonic(), b""
        while time.monotonic() - started < READ_TIMEOUT + 3:
            try:
                sock.sendall(b" ")
                received += sock.recv(65536)
            except BlockingIOError:
                time.sleep(0.05)
            except (BrokenPipeError, ConnectionResetError):
                break
            else:
                break
        seconds = time.monotonic() - started
    assert received.startswith(b"HTTP/1.1 408 "), received
    assert READ_TIMEOUT <= seconds < READ_TIMEOUT + 1.5


def test_an_upload_that_pauses_is_cut_off(url: str, live_keys: Keys) -> None:
    body = multipart("notes.txt", b"some notes " * 100)
    reply = exchange(url, upload_head(live_keys.alice, Content_Length=str(len(body))), [body[:200]])
    assert reply.status == 408
    assert reply.json() == {"detail": f"the upload paused for more than {READ_TIMEOUT:g} s"}
    assert reply.seconds < READ_TIMEOUT + 1.5 and reply.closed


# -- what a refusal says ------------------------------------------------------------------------


def test_a_validation_error_shows_a_preview_not_the_whole_input(url: str, live_keys: Keys) -> None:
    with httpx.Client(base_url=url, headers=auth(live_keys.alice)) as client:
        long_question = client.post("/api/ask", json={"question": "why " * 10_000})
        long_title = client.post("/api/conversations", json={"title": "t" * 60_000})
        many = client.post("/api/ask", json={"question": ["why"] * 5_000})
    for response in (long_question, long_title, many):
        assert response.status_code == 422
        assert len(response.content) < 2_000, response.text
    [error] = long_question.json()["detail"]
    assert error["msg"] == f"String should have at most {QUESTION_MAX_CHARS} characters"
    assert error["input"] == ("why " * 25) + "…"
    assert len(many.json()["detail"][0]["input"]) == 10


@pytest.mark.parametrize(
    ("messages", "message"),
    [
        (
            [{"role": "user", "content": "x" * (QUESTION_MAX_CHARS + 1)}],
            f"more than {QUESTION_MAX_CHARS:,}",
        ),
        (
            [
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "x" * (QUESTION_MAX_CHARS + 1)}],
                }
            ],
            f"more than {QUESTION_MAX_CHARS:,}",
        ),
        ([{"role": "user", "content": "Value?"}] * (MESSAGES_MAX + 1), f"at most {MESSAGES_MAX}"),
        (
            [
                {"role": "assistant", "content": "y" * (MESSAGE_MAX_CHARS + 1)},
                {"role": "user", "content": "Why?"},
            ],
            f"more than {MESSAGE_MAX_CHARS:,}",
        ),
        (
            [{"role": "assistant", "content": "y" * MESSAGE_MAX_CHARS}]
            * (CONVERSATION_MAX_CHARS // MESSAGE_MAX_CHARS + 1)
            + [{"role": "user", "content": "Why?"}],
            f"more than {CONVERSATION_MAX_CHARS:,}",
        ),
    ],
)
def test_v1_keeps_the_limits_of_api_ask(
    hostile_settings: ServerSettings,
    model: ScriptedModel,
    live_keys: Keys,
    messages: list[dict[str, Any]],
    message: str,
) -> None:
    app = create_app(
        hostile_settings.model_copy(update={"max_json_bytes": 1024 * 1024}), model=model
    )
    with LiveServer(app) as url:
        response = httpx.post(
            f"{url}/v1/chat/completions",
            json={"model": "docuchat", "messages": messages, "stream": True},
            headers=auth(live_keys.alice),
        )
    assert response.status_code == 400
    assert message in error_message(response)
    assert response.json()["error"]["type"] == "invalid_request_error"


def test_v1_refuses_a_body_over_the_cap_in_openai_shape(url: str, live_keys: Keys) -> None:
    messages = [{"role": "user", "content": "x" * 8000}] * 9
    response = httpx.post(
        f"{url}/v1/chat/completions",
        json={"model": "docuchat", "messages": messages},
        headers=auth(live_keys.alice),
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "request_too_large"


# -- the page's and the API's headers -------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "keyed"),
    [
        ("/", False),
        ("/app.js", False),
        ("/health", False),
        ("/api/me", True),
        ("/v1/models", True),
        ("/api/me", False),
    ],
)
def test_every_response_carries_the_security_headers(
    url: str, live_keys: Keys, path: str, keyed: bool
) -> None:
    response = httpx.get(url + path, headers=auth(live_keys.alice) if keyed else {})
    assert response.status_code == (401 if path == "/api/me" and not keyed else 200)
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    policy = response.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
