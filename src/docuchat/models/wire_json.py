"""JSON on the wire to and from the providers.

Out: compact, with orjson for speed (a request carries the whole transcript
and the tool schemas on every call). The stdlib takes over for what orjson
refuses (integers beyond 64 bits, which a model may write into tool
arguments), with the same output.

In: ``loads`` replaces each lone surrogate escape (``\ud800`` without its
pair) with U+FFFD. Python's decoder keeps them, and a string holding one can
be neither stored, nor sent as UTF-8, nor serialised by pydantic: one such
escape from a model would break every answer, stream and trace it reaches.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def dumps_bytes(value: Any) -> bytes:
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def dumps(value: Any) -> str:
    return dumps_bytes(value).decode()


def loads(data: str | bytes) -> Any:
    """``json.loads``, with lone surrogates replaced; ``ValueError`` for what is not JSON,
    nesting too deep included."""
    text = data if isinstance(data, str) else data.decode("utf-8", "replace")
    try:
        value = json.loads(text)
        return _without_surrogates(value) if may_hold_surrogates(text) else value
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def may_hold_surrogates(text: str) -> bool:
    """Whether JSON text has a ``\\ud800``-``\\udfff`` escape (a pair, or a lone surrogate)."""
    return _SURROGATE_ESCAPE.search(text) is not None


def _without_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        # Through UTF-16, pairs stay characters and each lone surrogate becomes U+FFFD.
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [_without_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    return value
