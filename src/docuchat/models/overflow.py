"""A request too long for the model's context window, as each server words it.

Servers say it with a 4xx status and a message; some add typed fields:

- OpenAI and llama-cpp-python: ``error.code == "context_length_exceeded"``, "This
  model's maximum context length is 2048 tokens. However, you requested 2100 tokens
  (2100 in the messages, None in the completion)...";
- llama.cpp's llama-server: ``error.type == "exceed_context_size_error"`` with
  ``n_prompt_tokens`` and ``n_ctx``, "request (4476 tokens) exceeds the available
  context size (4096 tokens)";
- vLLM: "This model's maximum context length is 2048 tokens. However, you requested...";
- LM Studio: "...the model is loaded with context length of only 4096 tokens...";
- Ollama (when it does not truncate): "the input length exceeds the context length";
- Anthropic: "prompt is too long: 215000 tokens > 200000 maximum".
"""

from __future__ import annotations

import re
from typing import Any

from docuchat.errors import ContextOverflow
from docuchat.models.servers import positive_int

_CODES = frozenset({"context_length_exceeded", "exceed_context_size_error"})
_PHRASES = re.compile(
    r"maximum context length|exceeds? the (?:available )?context (?:size|length)"
    r"|context length of only|prompt is too long|input length exceeds",
    re.IGNORECASE,
)
_WINDOW = re.compile(
    r"maximum context length is (\d+)|context size \((\d+) tokens\)"
    r"|context length of only (\d+)|> (\d+) maximum",
    re.IGNORECASE,
)
_PROMPT = re.compile(
    r"\((\d+) in the messages|request \((\d+) tokens\)|your request has (\d+) input tokens"
    r"|prompt is too long: (\d+) tokens",
    re.IGNORECASE,
)


def context_overflow(status: int, body: Any, message: str) -> ContextOverflow | None:
    """The typed error when a failed answer says the request did not fit; else None.

    ``body`` is the decoded JSON of the answer (or of a stream's error event), if any.
    """
    error = body.get("error") if isinstance(body, dict) else None
    fields: dict[str, Any] = error if isinstance(error, dict) else {}
    typed = {fields.get("code"), fields.get("type")} & _CODES
    if not typed and not _PHRASES.search(message):
        return None
    return ContextOverflow(
        status,
        message,
        context_window=positive_int(fields.get("n_ctx")) or _first_number(_WINDOW, message),
        prompt_tokens=positive_int(fields.get("n_prompt_tokens"))
        or _first_number(_PROMPT, message),
    )


def _first_number(pattern: re.Pattern[str], message: str) -> int | None:
    match = pattern.search(message)
    if match is None:
        return None
    return int(next(group for group in match.groups() if group is not None))


__all__ = ["context_overflow"]
