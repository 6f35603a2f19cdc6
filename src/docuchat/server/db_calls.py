"""Short database calls from the event loop: in place when that cannot block.

A worker-thread hop costs more CPU than an indexed insert, and with hundreds of
runs in flight the hops (and the threads' contention for the GIL) were most of
a conversation's start-up time. With SQLite, reads never wait (WAL) and a write
waits only for another writer (an upload being stored): then, and for every
PostgreSQL call (a network round trip), the call raises ``WouldWait`` under
``never_wait`` and moves to a worker thread instead of stalling every other
request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from fastapi.concurrency import run_in_threadpool

from docuchat.store.waiting import WouldWait, never_wait

T = TypeVar("T")


async def db_call(call: Callable[[], T]) -> T:
    """Run ``call`` (at most one write transaction) on the loop, or on a thread if it would wait."""
    try:
        with never_wait():
            return call()
    except WouldWait:
        return await run_in_threadpool(call)
