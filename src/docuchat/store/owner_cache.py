"""An LRU of in-memory indexes (vector matrices, BM25 postings), each valid for one generation.

Bounded by memory, not by a count of owners: a server with many users keeps
every small owner's index (a count of four made twenty active users rebuild
their BM25 index on almost every search), and one very large owner still fits,
since the newest entry is kept whatever its size.

Threads read through snapshots of their own, so a thread may ask for an older
or newer generation than the one cached; each gets the index of its own
generation, and the cache keeps the newest. One key is built by one thread at
a time: the others wait for it instead of building it again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar


class Generational(Protocol):
    @property
    def generation(self) -> int: ...

    @property
    def nbytes(self) -> int: ...


K = TypeVar("K")
V = TypeVar("V", bound=Generational)


class OwnerCache(Generic[K, V]):
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[K, threading.Lock] = {}

    def get(self, key: K, generation: int, build: Callable[[], V]) -> V:
        """The cached value for ``key`` at ``generation``, or ``build()``'s (then cached)."""
        with self._lock:
            if (value := self._current(key, generation)) is not None:
                return value
            building = self._building.setdefault(key, threading.Lock())
        with building:
            with self._lock:
                if (value := self._current(key, generation)) is not None:
                    return value
            value = build()
            self.put(key, value)
        return value

    def put(self, key: K, value: V, *, replacing: V | None = None) -> None:
        """Cache ``value`` unless a newer generation is cached (or, with ``replacing``,
        unless the cached value is no longer ``replacing``)."""
        with self._lock:
            cached = self._entries.get(key)
            if replacing is not None and cached is not replacing:
                return
            if cached is None or cached.generation <= value.generation:
                self._entries[key] = value
                self._entries.move_to_end(key)
            while len(self._entries) > 1 and self._total_bytes() > self.max_bytes:
                evicted, _ = self._entries.popitem(last=False)
                self._building.pop(evicted, None)

    def peek(self, key: K, generation: int) -> V | None:
        """The cached value for ``key`` at ``generation``, if any; never builds one."""
        with self._lock:
            return self._current(key, generation)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def _total_bytes(self) -> int:
        return sum(value.nbytes for value in self._entries.values())

    def _current(self, key: K, generation: int) -> V | None:
        value = self._entries.get(key)
        if value is None or value.generation != generation:
            return None
        self._entries.move_to_end(key)
        return value
