"""``GET /api/jobs/{job_id}``: how far an upload's ingestion got, whichever process runs it."""

from __future__ import annotations

from fastapi import APIRouter

from docuchat.server.deps import CurrentUser, ServicesDep
from docuchat.server.schemas import JobPublic, error_responses

router = APIRouter(prefix="/api/jobs", tags=["documents"], responses=error_responses(401, 404))


@router.get("/{job_id}")
def get_job(job_id: str, user: CurrentUser, services: ServicesDep) -> JobPublic:
    return JobPublic.of(services.coordination.get_job(user.id, job_id))
