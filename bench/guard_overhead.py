"""CPU the request guard adds to one request: ``python bench/guard_overhead.py``.

The guard (``docuchat.server.guard``) in front of an app that reads the body and
answers a small JSON, against the same app alone, for a ``POST /api/ask`` as the
web page sends it (a key, a question of 60 characters) and a ``GET /api/me``.
The key lookup is the same SQLite read the routes' dependency made before the
guard existed, so it is left out of both sides (a stub accounts object). Best of
seven rounds of 20,000 requests each, interleaved, on one core.
"""

from __future__ import annotations

import asyncio
import json
import time
from types import SimpleNamespace
from typing import Any

from docuchat.server.guard import BodyLimits, RequestGuard

ROUNDS, REQUESTS = 7, 20_000
BODY = json.dumps({"question": "How many days of annual leave do full-time employees get?"})
LIMITS = BodyLimits(json_bytes=1024 * 1024, upload_bytes=200 * 1024 * 1024, timeout=10)


async def app(scope: Any, receive: Any, send: Any) -> None:
    """Reads the body, answers 200 with a small JSON."""
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b'{"ok":true}'})


def scope(method: str, path: str, body: bytes) -> dict[str, Any]:
    headers = [(b"host", b"127.0.0.1:8000"), (b"authorization", b"Bearer dc_key_secret")]
    if body:
        headers += [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    return {"type": "http", "method": method, "path": path, "headers": headers}


async def requests(asgi: Any, method: str, path: str, body: bytes) -> float:
    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(_message: Any) -> None:
        pass

    started = time.process_time()
    for _ in range(REQUESTS):
        await asgi(scope(method, path, body), receive, send)
    return (time.process_time() - started) / REQUESTS * 1e6


def main() -> None:
    accounts = SimpleNamespace(authenticate=lambda key: SimpleNamespace(id="u", name="u"))
    guarded = RequestGuard(app, accounts, LIMITS)
    for method, path, body in (("POST", "/api/ask", BODY.encode()), ("GET", "/api/me", b"")):
        best = {"alone": float("inf"), "guarded": float("inf")}
        for _ in range(ROUNDS):
            for name, asgi in (("alone", app), ("guarded", guarded)):
                best[name] = min(best[name], asyncio.run(requests(asgi, method, path, body)))
        added = best["guarded"] - best["alone"]
        print(f"{method} {path}: {best['alone']:.1f} µs alone, {best['guarded']:.1f} µs guarded,")
        print(f"  the guard adds {added:.1f} µs of CPU per request")


if __name__ == "__main__":
    main()
