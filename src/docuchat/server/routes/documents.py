"""``/api/documents``: upload (ingested in the background), list, show and delete documents.

An upload is checked before anything is kept: a missing length (411) or an upload
over its limit (413), both refused by the request guard before the body is read,
or no files at all (400) reject the request. Then each file answers for itself: a file
whose type cannot be read or that is over the file limit is listed in
``rejected`` with its reason, and the others are ingested; only when no file is
left is the request refused (415, or 413 if one was too large).
An upload the queue has no room for is refused with 503 and ``Retry-After``,
before its body is read when its length already says so. Accepted files go to
the queue in the database (``Services.submit_upload``), which any process of
the deployment ingests from (``server/ingestion.py``).
"""

from __future__ import annotations

from functools import partial
from pathlib import PurePosixPath
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Path, Query, Request, Response, status
from fastapi.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from docuchat.corpus.parse import SUPPORTED_SUFFIXES, is_supported
from docuchat.corpus.render import MAX_WIDTH, MIN_WIDTH, RENDERED_TYPES
from docuchat.errors import FileTooLarge, UnsupportedFileType
from docuchat.server.db_calls import db_call
from docuchat.server.deps import CurrentUser, ServicesDep, StoreDep
from docuchat.server.schemas import (
    DocumentList,
    DocumentPublic,
    JobSkipped,
    UploadAccepted,
    error_responses,
)
from docuchat.server.settings import ServerSettings
from docuchat.store.base import file_name
from docuchat.store.coordination import SpooledFile, check_room

router = APIRouter(prefix="/api/documents", tags=["documents"], responses=error_responses(401))

_UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["files"],
                    "properties": {
                        "files": {
                            "type": "array",
                            "minItems": 1,
                            "items": {"type": "string", "format": "binary"},
                            "description": "One or more files: "
                            + ", ".join(sorted(SUPPORTED_SUFFIXES)),
                        }
                    },
                }
            }
        },
    }
}


@router.post(
    "",
    status_code=status.HTTP_202_ACCEPTED,
    openapi_extra=_UPLOAD_BODY,
    responses=error_responses(400, 408, 411, 413, 415, 503),
)
async def upload_documents(
    request: Request, user: CurrentUser, services: ServicesDep
) -> UploadAccepted:
    """Accept files for ingestion; follow the job at ``GET /api/jobs/{job_id}``."""
    settings = services.settings
    length = int(request.headers["content-length"])  # the request guard refused none or too big
    check_room(await db_call(services.coordination.queued_bytes), length, settings.max_queued_bytes)
    # Starlette keeps each file in memory up to 1 MiB, then in a temporary file.
    async with request.form(max_files=settings.max_files) as form:
        files = [part for part in form.getlist("files") if isinstance(part, UploadFile)]
        if not files:
            raise HTTPException(status.HTTP_400_BAD_REQUEST, "no files: send them as 'files'")
        uploads, rejected = [], []
        for file in files:
            name = file_name(file.filename)
            problem = _problem(name, file, settings)
            if problem is None:
                uploads.append(SpooledFile(name, file.file, file.size or 0))
            else:
                rejected.append(problem)
        if not uploads:
            too_large = any(r.reason == FileTooLarge.reason for r in rejected)
            code = (
                status.HTTP_413_CONTENT_TOO_LARGE
                if too_large
                else status.HTTP_415_UNSUPPORTED_MEDIA_TYPE
            )
            raise HTTPException(code, "; ".join(f"{r.file}: {r.message}" for r in rejected))
        job = await run_in_threadpool(partial(services.submit_upload, user.id, uploads))
    return UploadAccepted(
        job_id=job.id, status=job.status, files=list(job.files), rejected=rejected
    )


@router.get("")
def list_documents(user: CurrentUser, store: StoreDep) -> DocumentList:
    """Oldest first."""
    return DocumentList(documents=[DocumentPublic.of(d) for d in store.list_documents(user.id)])


@router.get(
    "/{doc_id}/file",
    responses={**error_responses(404), 200: {"content": {"application/octet-stream": {}}}},
    response_class=Response,
)
def document_file(doc_id: str, user: CurrentUser, store: StoreDep) -> Response:
    """The original file as uploaded. It is served sandboxed (no script of it runs in this
    site's origin); PDFs and pictures inline, other types as a download."""
    record = store.get_document(user.id, doc_id)
    data = store.document_file(user.id, doc_id)
    name = file_name(record.source or record.title)
    disposition = "inline" if record.media_type in RENDERED_TYPES else "attachment"
    return Response(
        data,
        media_type=record.media_type,
        headers={
            "Content-Disposition": f"{disposition}; filename*=UTF-8''{quote(name)}",
            "Content-Security-Policy": "sandbox; default-src 'none'; style-src 'unsafe-inline'",
            "X-Content-Type-Options": "nosniff",
            "Cache-Control": "private, max-age=3600",
        },
    )


@router.get(
    "/{doc_id}/pages/{page}",
    responses={**error_responses(404, 415), 200: {"content": {"image/png": {}}}},
    response_class=Response,
)
async def document_page(
    doc_id: str,
    user: CurrentUser,
    services: ServicesDep,
    page: Annotated[int, Path(ge=1, le=100_000)],
    width: Annotated[int, Query(ge=MIN_WIDTH, le=MAX_WIDTH)] = 1000,
) -> Response:
    """Page ``page`` of a PDF or a picture as a PNG about ``width`` pixels wide (rounded up
    to a multiple of 200; cached)."""
    record = await run_in_threadpool(services.store.get_document, user.id, doc_id)
    if record.media_type not in RENDERED_TYPES:
        raise HTTPException(
            status.HTTP_415_UNSUPPORTED_MEDIA_TYPE, f"{record.media_type} has no pages to show"
        )
    png = await run_in_threadpool(services.pages.png, user.id, record, page, width)
    return Response(png, media_type="image/png", headers={"Cache-Control": "private, max-age=3600"})


@router.delete("/{doc_id}", status_code=status.HTTP_204_NO_CONTENT, responses=error_responses(404))
def delete_document(doc_id: str, user: CurrentUser, store: StoreDep) -> Response:
    """Remove the document with its passages and vectors."""
    store.remove_document(user.id, doc_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


def _problem(name: str, file: UploadFile, settings: ServerSettings) -> JobSkipped | None:
    """Why the file cannot be ingested, judged by its name and size; None if it can be."""
    if not name:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, "every file needs a file name")
    if not is_supported(name):
        suffix = PurePosixPath(name).suffix.lower()
        kind = f"{suffix} files are" if suffix else "files without an extension are"
        message = f"{kind} not supported (supported: {', '.join(sorted(SUPPORTED_SUFFIXES))})"
        return JobSkipped(file=name, reason=UnsupportedFileType.reason, message=message)
    if file.size is not None and file.size > settings.max_file_bytes:
        message = f"{file.size:,} bytes, more than the limit of {settings.max_file_bytes:,}"
        return JobSkipped(file=name, reason=FileTooLarge.reason, message=message)
    return None
