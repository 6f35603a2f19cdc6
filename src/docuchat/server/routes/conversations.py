"""``/api/conversations``: a user's conversations and their turns."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from docuchat.server.deps import AccountsDep, CurrentUser
from docuchat.server.schemas import (
    ConversationCreate,
    ConversationList,
    ConversationPublic,
    ConversationSummaryPublic,
    error_responses,
)

router = APIRouter(
    prefix="/api/conversations", tags=["conversations"], responses=error_responses(401)
)

DEFAULT_TITLE = "New conversation"


@router.get("")
def list_conversations(user: CurrentUser, accounts: AccountsDep) -> ConversationList:
    """Most recently updated first."""
    summaries = accounts.list_conversations(user.id)
    return ConversationList(conversations=[ConversationSummaryPublic.of(s) for s in summaries])


@router.post("", status_code=status.HTTP_201_CREATED, responses=error_responses(400))
def create_conversation(
    body: ConversationCreate, user: CurrentUser, accounts: AccountsDep
) -> ConversationPublic:
    title = (body.title or "").strip() or DEFAULT_TITLE
    return ConversationPublic.of(accounts.create_conversation(user.id, title))


@router.get("/{conversation_id}", responses=error_responses(404))
def get_conversation(
    conversation_id: str, user: CurrentUser, accounts: AccountsDep
) -> ConversationPublic:
    return ConversationPublic.of(accounts.get_conversation(user.id, conversation_id))


@router.delete(
    "/{conversation_id}", status_code=status.HTTP_204_NO_CONTENT, responses=error_responses(404)
)
def delete_conversation(conversation_id: str, user: CurrentUser, accounts: AccountsDep) -> Response:
    accounts.delete_conversation(user.id, conversation_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
