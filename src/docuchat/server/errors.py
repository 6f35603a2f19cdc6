"""How the server says no: ``{"detail": ...}``, or OpenAI's error object under ``/v1``.

One renderer for every refusal, whether a route raised it or the request guard
refused the request before any route ran.
"""

from __future__ import annotations

from collections.abc import Mapping

from fastapi.responses import JSONResponse

from docuchat.server.openai_schemas import OpenAIErrorDetail

OPENAI_PREFIX = "/v1/"

# OpenAI's ``code`` for the statuses its clients look for.
_OPENAI_CODES = {
    401: "invalid_api_key",
    404: "model_not_found",
    408: "timeout",
    413: "request_too_large",
    415: "unsupported_media_type",
    502: "model_error",
    503: "unavailable",
    504: "timeout",
}


def error_response(
    path: str,
    status_code: int,
    message: str,
    headers: Mapping[str, str] | None = None,
    *,
    code: str | None = None,
) -> JSONResponse:
    """The error as the route's clients expect it; ``code`` overrides OpenAI's default code."""
    if not path.startswith(OPENAI_PREFIX):
        return JSONResponse({"detail": message}, status_code, headers)
    body = {"error": openai_error(status_code, message, code=code).model_dump()}
    return JSONResponse(body, status_code, headers)


def openai_error(status_code: int, message: str, *, code: str | None = None) -> OpenAIErrorDetail:
    """OpenAI's ``error`` object: message, type (by status), param and code."""
    return OpenAIErrorDetail(
        message=message,
        type="server_error" if status_code >= 500 else "invalid_request_error",
        code=code or _OPENAI_CODES.get(status_code),
    )
