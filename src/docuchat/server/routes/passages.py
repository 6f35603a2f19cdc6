"""``GET /api/passages/{chunk_id}``: a cited passage with the text around it."""

from __future__ import annotations

from fastapi import APIRouter

from docuchat.server.deps import CurrentUser, StoreDep
from docuchat.server.schemas import PassagePublic, error_responses

router = APIRouter(prefix="/api/passages", tags=["documents"], responses=error_responses(401, 404))

CONTEXT_CHARS = 400


@router.get("/{chunk_id}")
def get_passage(chunk_id: str, user: CurrentUser, store: StoreDep) -> PassagePublic:
    """The chunk's text, and up to 400 characters of its document on either side.

    A citation's ``span`` is in document offsets: its quote is
    ``text[span[0] - start : span[1] - start]``.
    """
    chunk = store.get_chunk(user.id, chunk_id)
    before = store.document_text(
        user.id, chunk.doc_id, max(0, chunk.start - CONTEXT_CHARS), chunk.start
    )
    after = store.document_text(user.id, chunk.doc_id, chunk.end, chunk.end + CONTEXT_CHARS)
    return PassagePublic.of(chunk, before, after)
