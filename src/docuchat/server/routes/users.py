"""``GET /api/me``: whose key this is."""

from __future__ import annotations

from fastapi import APIRouter

from docuchat.server.deps import CurrentUser
from docuchat.server.schemas import UserPublic, error_responses

router = APIRouter(prefix="/api", tags=["users"], responses=error_responses(401))


@router.get("/me")
def me(user: CurrentUser) -> UserPublic:
    return UserPublic.of(user)
