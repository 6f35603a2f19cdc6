"""Log every pause of a process's cyclic garbage collector, to read back by time window.

``install(path)`` appends one line per collection, ``start end`` in
``time.perf_counter`` seconds (system-wide on Linux, so another process's
windows compare); ``pauses(path, start, stop)`` reads back the durations of
those that began inside a window.
"""

from __future__ import annotations

import gc
import time
from pathlib import Path
from typing import Any


def install(path: str) -> None:
    log = open(path, "a", buffering=1)  # noqa: SIM115 - open for the life of the process
    began = 0.0

    def on_collection(phase: str, _info: dict[str, Any]) -> None:
        nonlocal began
        if phase == "start":
            began = time.perf_counter()
        else:
            log.write(f"{began} {time.perf_counter()}\n")

    gc.callbacks.append(on_collection)


def pauses(path: Path, start: float, stop: float) -> list[float]:
    """Durations in seconds of the collections that began in ``[start, stop)``."""
    if not path.exists():
        return []
    spans = [tuple(map(float, line.split())) for line in path.read_text().splitlines()]
    return [end - begin for begin, end in spans if start <= begin < stop]
