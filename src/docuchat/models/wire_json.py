"""Compact JSON as the adapters put it on the wire.

orjson, for speed: a request carries the whole transcript and the tool schemas
on every call. The stdlib takes over for what orjson refuses (integers beyond
64 bits, which a model may write into tool arguments), with the same output.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def dumps_bytes(value: Any) -> bytes:
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def dumps(value: Any) -> str:
    return dumps_bytes(value).decode()
