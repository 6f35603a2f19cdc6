"""``GET /health``: is the server up (no key needed)."""

from __future__ import annotations

from fastapi import APIRouter

from docuchat import __version__
from docuchat.server.schemas import Health

router = APIRouter(tags=["health"])


@router.get("/health")
def health() -> Health:
    return Health(version=__version__)
