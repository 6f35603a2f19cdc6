"""A cancel signal that can be raised from any thread or task."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable


class Cancellation:
    """Hand one to ``Agent.run``; call :meth:`cancel` to stop the run.

    The loop checks it before every model call and tool execution, and an
    in-flight model request or running tool is interrupted at once.
    """

    def __init__(self) -> None:
        self._cancelled = False
        self.reason = ""
        self._lock = threading.Lock()
        self._callbacks: list[tuple[asyncio.AbstractEventLoop, Callable[[], None]]] = []

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self, reason: str = "cancelled by caller") -> None:
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            self.reason = reason
            callbacks = list(self._callbacks)
        for loop, callback in callbacks:
            loop.call_soon_threadsafe(callback)  # from any thread, this loop's included

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Schedule ``callback`` on the running loop when cancelled (at once, if already).

        It runs soon after, never inside, :meth:`cancel`: work that cancels and
        then finishes in the same step keeps its result. Returns the function
        that unregisters it. Called from an event loop.
        """
        entry = (asyncio.get_running_loop(), callback)
        with self._lock:
            if not self._cancelled:
                self._callbacks.append(entry)
                return lambda: self._forget(entry)
        entry[0].call_soon(callback)
        return lambda: None

    def _forget(self, entry: tuple[asyncio.AbstractEventLoop, Callable[[], None]]) -> None:
        with self._lock:
            if entry in self._callbacks:
                self._callbacks.remove(entry)
