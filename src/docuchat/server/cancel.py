"""Cancelling a run wherever it runs: in this process, or in another through the database.

A run id starts with the id of the process that runs it. A request for a run
of another live process is written to the database (and announced with
NOTIFY on PostgreSQL); that process cancels the run if it has it and answers,
and the answer decides between 202 and 404, exactly as for a run of this
process. A run of a dead process is over: 404 at once.
"""

from __future__ import annotations

import asyncio
import time
from functools import partial

from fastapi import HTTPException, status

from docuchat.errors import NotFound
from docuchat.server.db_calls import db_call
from docuchat.server.runs import RunRegistry
from docuchat.store.coordination import PROCESS_ID_LENGTH, Coordination

ANSWER_TIMEOUT_S = 5.0
"""How long a live process may take to answer before the caller hears 503."""
POLL_S = 0.02


async def cancel_run(
    runs: RunRegistry, coordination: Coordination, owner: str, run_id: str, reason: str
) -> None:
    """Cancel the owner's run in flight in any live process; ``NotFound`` for any other id."""
    if runs.cancel(owner, run_id, reason):
        return
    process = run_id[:PROCESS_ID_LENGTH]
    if process == runs.process_id or not await db_call(partial(coordination.is_alive, process)):
        raise NotFound(f"no run {run_id!r} in flight")
    key = await db_call(partial(coordination.request_cancel, process, run_id, owner, reason))
    deadline = time.monotonic() + ANSWER_TIMEOUT_S
    while (answer := await db_call(partial(coordination.cancel_answer, key))) is None:
        if time.monotonic() > deadline:
            raise HTTPException(
                status.HTTP_503_SERVICE_UNAVAILABLE,
                f"the process running {run_id!r} did not answer: try again",
            )
        await asyncio.sleep(POLL_S)
    if not answer:
        raise NotFound(f"no run {run_id!r} in flight")
