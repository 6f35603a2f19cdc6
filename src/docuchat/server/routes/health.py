"""``GET /health``: which process answered, and whether the database and the queue answer.

No key needed. 503 when the database does not answer, so that a load balancer
sends requests to the processes that can serve them.
"""

from __future__ import annotations

import os

from fastapi import APIRouter, Response, status

from docuchat import __version__
from docuchat.errors import StoreError
from docuchat.server.db_calls import db_call
from docuchat.server.deps import ServicesDep
from docuchat.server.schemas import Health

router = APIRouter(tags=["health"])


@router.get("/health", responses={503: {"model": Health, "description": "No database"}})
async def health(services: ServicesDep, response: Response) -> Health:
    try:
        stats = await db_call(services.coordination.stats)
    except StoreError:
        stats = None
        response.status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    return Health.of(
        stats,
        version=__version__,
        pid=os.getpid(),
        process=services.process_id,
        ingests=services.settings.ingest_threads > 0,
    )
