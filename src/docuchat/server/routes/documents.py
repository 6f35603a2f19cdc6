"""``/api/documents``: upload (ingested in the background), list and delete documents.

An upload is checked whole before anything is kept: a missing length (411),
an upload or a file over its limit (413), a file type that cannot be read
(415), or no files at all (400) reject the request and nothing is written.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from fastapi import APIRouter, HTTPException, Request, Response, status
from fastapi.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from docuchat.corpus.parse import SUPPORTED_SUFFIXES
from docuchat.server.deps import CurrentUser, ServicesDep, StoreDep
from docuchat.server.ingestion import Upload, upload_name
from docuchat.server.schemas import (
    DocumentList,
    DocumentPublic,
    UploadAccepted,
    error_responses,
)
from docuchat.server.settings import ServerSettings

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
    responses=error_responses(400, 411, 413, 415),
)
async def upload_documents(
    request: Request, user: CurrentUser, services: ServicesDep
) -> UploadAccepted:
    """Accept files for ingestion; follow the job at ``GET /api/jobs/{job_id}``."""
    settings = services.settings
    _check_length(request.headers.get("content-length"), settings)
    async with request.form(max_files=settings.max_files) as form:
        files = [part for part in form.getlist("files") if isinstance(part, UploadFile)]
        if not files:
            raise HTTPException(status.HTTP_400_BAD_REQUEST, "no files: send them as 'files'")
        names = [_checked_name(file, settings) for file in files]
        uploads = [Upload(name, await file.read()) for name, file in zip(names, files, strict=True)]
    job = await run_in_threadpool(services.ingestion.submit, user.id, uploads)
    return UploadAccepted(job_id=job.id, status=job.status, files=list(job.files))


@router.get("")
def list_documents(user: CurrentUser, store: StoreDep) -> DocumentList:
    """Oldest first."""
    return DocumentList(documents=[DocumentPublic.of(d) for d in store.list_documents(user.id)])


@router.delete("/{doc_id}", status_code=status.HTTP_204_NO_CONTENT, responses=error_responses(404))
def delete_document(doc_id: str, user: CurrentUser, store: StoreDep) -> Response:
    """Remove the document with its passages and vectors."""
    store.remove_document(user.id, doc_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


def _check_length(header: str | None, settings: ServerSettings) -> None:
    if header is None or not header.isdigit():
        raise HTTPException(status.HTTP_411_LENGTH_REQUIRED, "send the upload's Content-Length")
    if int(header) > settings.max_upload_bytes:
        raise HTTPException(
            status.HTTP_413_CONTENT_TOO_LARGE,
            f"the upload has {int(header):,} bytes, more than the limit of"
            f" {settings.max_upload_bytes:,}",
        )


def _checked_name(file: UploadFile, settings: ServerSettings) -> str:
    """The file's name, once its type and size are acceptable."""
    name = upload_name(file.filename)
    if not name:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, "every file needs a file name")
    suffix = PurePosixPath(name).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        kind = f"{suffix} files are" if suffix else "files without an extension are"
        raise HTTPException(
            status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
            f"{name}: {kind} not supported (supported: {', '.join(sorted(SUPPORTED_SUFFIXES))})",
        )
    if file.size is not None and file.size > settings.max_file_bytes:
        raise HTTPException(
            status.HTTP_413_CONTENT_TOO_LARGE,
            f"{name}: {file.size:,} bytes, more than the limit of {settings.max_file_bytes:,}",
        )
    return name
