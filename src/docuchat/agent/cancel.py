"""A cancel signal that can be raised from any thread or task."""

from __future__ import annotations

import asyncio


class Cancellation:
    """Hand one to ``Agent.run``; call :meth:`cancel` to stop the run.

    The loop checks it before every model call and tool execution, and an
    in-flight model request or running tool is interrupted at once.
    """

    def __init__(self) -> None:
        self._cancelled = False
        self.reason = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._event: asyncio.Event | None = None

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self, reason: str = "cancelled by caller") -> None:
        if self._cancelled:
            return
        self._cancelled = True
        self.reason = reason
        if self._loop is None or self._event is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            self._event.set()
        else:
            self._loop.call_soon_threadsafe(self._event.set)

    async def wait(self) -> None:
        if self._event is None:
            self._loop = asyncio.get_running_loop()
            self._event = asyncio.Event()
            if self._cancelled:
                self._event.set()
        await self._event.wait()
