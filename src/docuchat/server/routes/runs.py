"""``POST /api/runs/{run_id}/cancel``: stop a run in flight, in whichever process it runs."""

from __future__ import annotations

from fastapi import APIRouter, status

from docuchat.server.cancel import cancel_run as cancel_anywhere
from docuchat.server.deps import CurrentUser, ServicesDep
from docuchat.server.schemas import CancelResult, error_responses

router = APIRouter(prefix="/api/runs", tags=["ask"], responses=error_responses(401, 404))


@router.post(
    "/{run_id}/cancel", status_code=status.HTTP_202_ACCEPTED, responses=error_responses(503)
)
async def cancel_run(run_id: str, user: CurrentUser, services: ServicesDep) -> CancelResult:
    """Stop the run and its model request; its stream ends with outcome ``cancelled``.

    404 for a run that is not in flight (finished, unknown or someone else's); 503 if the
    process running it did not answer.
    """
    await cancel_anywhere(
        services.runs, services.coordination, user.id, run_id, "cancelled by the user"
    )
    return CancelResult(cancelled=True)
