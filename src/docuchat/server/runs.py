"""Research runs in flight: each on its own task, reachable by id to be cancelled.

A run's task streams the research agent's events into a queue that the HTTP
response reads. The run does not depend on the response: when the client goes
away (or asks to cancel) the run's ``Cancellation`` stops it, which also
aborts the model request in flight, and the run still ends in order (its turn
is saved with the outcome ``cancelled``). A run id starts with its process's
id, so that a cancel request reaching another process of the deployment finds
its way here (``server/cancel.py``).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from fastapi import HTTPException
from fastapi.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from docuchat.agent import Cancellation, Event
from docuchat.models.base import Message
from docuchat.research import Answer, AnswerReady, ResearchAgent
from docuchat.server.stream import DONE

log = logging.getLogger(__name__)

OnAnswer = Callable[[Answer], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class RunCrashed:
    """The run raised instead of ending with an outcome (a fault of the server, not the model)."""

    message: str


RunItem = Event | AnswerReady | RunCrashed


class ActiveRun:
    def __init__(self, run_id: str, owner: str, conversation_id: str | None) -> None:
        self.id = run_id
        self.owner = owner
        self.conversation_id = conversation_id
        self.cancel = Cancellation()
        self.queue: asyncio.Queue[RunItem | None] = asyncio.Queue()

    async def batches(self) -> AsyncIterator[list[RunItem]]:
        """The run's events, then its ``AnswerReady`` (or ``RunCrashed``), in batches of all
        that was ready at once (a streamed response writes each batch in one go).

        A reader that stops early (the client went away) cancels the run.
        """
        finished = False
        try:
            while not finished:
                batch = [await self.queue.get()]
                while not self.queue.empty():
                    batch.append(self.queue.get_nowait())
                finished = batch[-1] is None
                yield [item for item in batch if item is not None]
        finally:
            if not finished:
                self.cancel.cancel("client disconnected")

    async def texts(self, render: Callable[[RunItem], str]) -> AsyncIterator[str]:
        """The run's events rendered, one text per batch; the last batch (the answer or
        the crash) comes with ``[DONE]`` in the same text, so in one write.

        An event that cannot be rendered (text no UTF-8 can hold, say) ends the stream in
        order: the run is cancelled and its crash rendered instead, then ``[DONE]``.
        """
        final = ""
        async for batch in self.batches():
            try:
                text = "".join(render(item) for item in batch)
            except Exception as exc:
                log.exception("run %s: an event could not be written", self.id)
                self.cancel.cancel("an event could not be written")
                crash = RunCrashed(f"an event could not be written: {type(exc).__name__}")
                yield final + render(crash) + DONE
                return
            if any(isinstance(item, AnswerReady | RunCrashed) for item in batch):
                final += text
            elif text:
                yield text
        yield final + DONE

    async def answer(self) -> Answer:
        """Wait for the answer; a crashed run is an HTTP 500 with its message."""
        async for batch in self.batches():
            for item in batch:
                if isinstance(item, AnswerReady):
                    return item.answer
                if isinstance(item, RunCrashed):
                    raise HTTPException(500, f"the run failed: {item.message}")
        raise HTTPException(500, "the run ended without an answer")


class RunRegistry:
    """The runs in flight in the process ``process_id``, by id. Nothing here waits on another
    run: no global locks."""

    def __init__(self, process_id: str) -> None:
        self.process_id = process_id
        self._runs: dict[str, ActiveRun] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def start(
        self,
        agent: ResearchAgent,
        question: str,
        *,
        history: Sequence[Message] = (),
        conversation_id: str | None = None,
        on_answer: OnAnswer | None = None,
    ) -> ActiveRun:
        """Start answering on a task of its own; ``on_answer`` runs before the answer is queued."""
        run = ActiveRun(self.process_id + secrets.token_hex(4), agent.owner, conversation_id)
        self._runs[run.id] = run
        task = asyncio.create_task(self._produce(run, agent, question, history, on_answer))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return run

    def cancel(self, owner: str, run_id: str, reason: str) -> bool:
        """Cancel one of the owner's runs in flight here; False for any other id.

        From any thread: one read of the dict, and ``Cancellation`` is thread safe.
        """
        run = self._runs.get(run_id)
        if run is None or run.owner != owner:
            return False
        run.cancel.cancel(reason)
        return True

    async def shutdown(self) -> None:
        """Cancel every run and wait until each has ended."""
        for run in self._runs.values():
            run.cancel.cancel("the server is shutting down")
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _produce(
        self,
        run: ActiveRun,
        agent: ResearchAgent,
        question: str,
        history: Sequence[Message],
        on_answer: OnAnswer | None,
    ) -> None:
        try:
            async for item in agent.stream(question, history=history, cancel=run.cancel):
                if isinstance(item, AnswerReady) and on_answer is not None:
                    await on_answer(item.answer)
                run.queue.put_nowait(item)
        except Exception as exc:
            log.exception("run %s failed", run.id)
            run.queue.put_nowait(RunCrashed(f"{type(exc).__name__}: {exc}"))
        finally:
            del self._runs[run.id]
            run.queue.put_nowait(None)


STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


class RunEventStream(StreamingResponse):
    """A run's server-sent events; the client hanging up cancels the run.

    Starlette's own watcher (an anyio task group around two tasks per
    response) cost about 4% of the server's CPU with 200 streams open; here
    one plain task watches, and the cancelled run then ends its stream.
    """

    def __init__(self, run: ActiveRun, events: AsyncIterable[str]) -> None:
        super().__init__(events, media_type="text/event-stream", headers=STREAM_HEADERS)
        self._cancel = run.cancel

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async with cancelled_on_disconnect(receive, self._cancel):
            await self.stream_response(send)

    async def stream_response(self, send: Send) -> None:
        """As Starlette's, but the text ending in ``[DONE]`` also ends the body (one write)."""
        start = {"type": "http.response.start", "status": self.status_code}
        await send({**start, "headers": self.raw_headers})
        ended = False
        async for text in self.body_iterator:
            ended = isinstance(text, str) and text.endswith(DONE)
            body = text.encode() if isinstance(text, str) else bytes(text)
            await send({"type": "http.response.body", "body": body, "more_body": not ended})
        if not ended:
            await send({"type": "http.response.body", "body": b"", "more_body": False})


@asynccontextmanager
async def cancelled_on_disconnect(receive: Receive, cancel: Cancellation) -> AsyncIterator[None]:
    """Cancel when the client hangs up during the block (one plain watcher task)."""

    async def watch() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        cancel.cancel("client disconnected")

    watcher = asyncio.create_task(watch())
    try:
        yield
    finally:
        watcher.cancel()
