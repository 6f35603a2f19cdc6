"""One routing table: the tool name a model sees -> the server that serves it (seed 004).

A tool keeps its own name unless another server lists the same name or it is
reserved (an agent's local tools): then every such tool is named
``<server>_<tool>``. Names are reduced to the characters every provider
accepts (letters, digits, ``_`` and ``-``, at most 64); the route keeps the
name the server knows.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from docuchat.errors import MCPServerError

MAX_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True, slots=True)
class Route:
    server: str
    tool: str
    """The tool's name on its server."""


def route_tools(
    listed: Mapping[str, Sequence[str]], *, reserved: Collection[str] = ()
) -> dict[str, Route]:
    """The routing table of the tools each server (in ``listed``) lists."""
    counts = Counter(_safe(name) for names in listed.values() for name in set(names))
    table: dict[str, Route] = {}
    for server, names in listed.items():
        for name in names:
            local = _safe(name)
            if counts[local] > 1 or local in reserved:
                local = _safe(f"{server}_{name}")
            if local in table or local in reserved:
                other = f"server {table[local].server!r}" if local in table else "a local tool"
                raise MCPServerError(
                    f"two tools would be named {local!r} ({other} and server {server!r}): "
                    "rename one of the servers"
                )
            table[local] = Route(server, name)
    return table


def _safe(name: str) -> str:
    return _UNSAFE.sub("_", name)[:MAX_NAME]
