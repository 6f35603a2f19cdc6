"""One router per resource."""

from fastapi import APIRouter

from docuchat.server.routes import (
    ask,
    conversations,
    documents,
    health,
    jobs,
    openai,
    passages,
    runs,
    users,
)

ROUTERS: tuple[APIRouter, ...] = (
    health.router,
    users.router,
    documents.router,
    jobs.router,
    passages.router,
    conversations.router,
    ask.router,
    runs.router,
    openai.router,
)

__all__ = ["ROUTERS"]
