"""Database calls that must not wait: for an event loop, which a waiting call would stall.

Inside :func:`never_wait` a call that would wait (for SQLite's write lock, or
for any PostgreSQL round trip) raises :class:`WouldWait` before it does
anything, and its caller runs it again on a worker thread.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_NEVER_WAIT: ContextVar[bool] = ContextVar("docuchat_never_wait", default=False)


class WouldWait(Exception):
    """A call under :func:`never_wait` would have waited; it did nothing."""


@contextmanager
def never_wait() -> Iterator[None]:
    """Database calls in this block raise :class:`WouldWait` rather than wait."""
    token = _NEVER_WAIT.set(True)
    try:
        yield
    finally:
        _NEVER_WAIT.reset(token)


def may_wait() -> bool:
    """False inside :func:`never_wait`."""
    return not _NEVER_WAIT.get()


def refuse_under_never_wait(what: str) -> None:
    """Raise :class:`WouldWait` inside :func:`never_wait`: for calls that always wait."""
    if _NEVER_WAIT.get():
        raise WouldWait(f"{what} would wait")
