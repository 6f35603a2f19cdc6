"""Tools: a handler with a JSON schema, built from a typed Python function.

``@tool`` reads the function's signature and docstring; arguments the model
sends are validated against a pydantic model of that signature before the
handler runs. A handler may take a :class:`RunContext` as its first parameter.
Async handlers are awaited; plain functions run in a worker thread so that a
slow one cannot block the loop or escape its timeout.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, get_type_hints, overload

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from docuchat.models.base import ToolSpec

DepsT = TypeVar("DepsT")


@dataclass(slots=True)
class RunContext(Generic[DepsT]):
    """What a tool may know about the run it serves."""

    run_id: str
    deps: DepsT
    iteration: int = 0
    state: dict[str, Any] = field(default_factory=dict)


class InvalidArguments(Exception):
    """The model's arguments do not match the tool's schema; the message is for the model."""


ArgumentValidator = Callable[[Mapping[str, Any]], dict[str, Any]]
"""Checks the model's arguments and returns the keyword arguments for the handler."""


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    parameters: Mapping[str, Any]
    """The JSON schema of the arguments, as the model sees it."""
    validate: ArgumentValidator
    handler: Callable[..., Any]
    takes_context: bool = False
    timeout: float | None = None
    max_output_chars: int | None = None
    keep_last: int | None = None
    """Only the newest ``keep_last`` results of this tool stay in full in the prompt."""
    summarize: Callable[[str], str] | None = None
    """Turns the tool's output into a one-line summary for events and eviction stubs."""

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.parameters)

    async def invoke(self, kwargs: Mapping[str, Any], ctx: RunContext[Any]) -> Any:
        positional = (ctx,) if self.takes_context else ()
        if inspect.iscoroutinefunction(self.handler):
            return await self.handler(*positional, **kwargs)
        result = await asyncio.to_thread(self.handler, *positional, **kwargs)
        if inspect.isawaitable(result):
            return await result
        return result


def format_output(value: Any) -> str:
    """How a handler's return value is shown to the model."""
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    return json.dumps(value, ensure_ascii=False, default=str)


def _pydantic_validator(name: str, model: type[BaseModel]) -> ArgumentValidator:
    def validate(arguments: Mapping[str, Any]) -> dict[str, Any]:
        try:
            parsed = model.model_validate(arguments)
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '(arguments)'}: {e['msg']}"
                for e in error.errors()
            )
            raise InvalidArguments(
                f"Invalid arguments for tool {name!r}: {problems}. Fix the arguments and retry."
            ) from None
        return {field: getattr(parsed, field) for field in type(parsed).model_fields}

    return validate


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = None,
    max_output_chars: int | None = None,
    keep_last: int | None = None,
    summarize: Callable[[str], str] | None = None,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = None,
    max_output_chars: int | None = None,
    keep_last: int | None = None,
    summarize: Callable[[str], str] | None = None,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Make a :class:`Tool` from a function with type hints (used bare or with options)."""

    def build(func: Callable[..., Any]) -> Tool:
        args_model, takes_context = _args_model(func)
        tool_name = name or func.__name__
        return Tool(
            name=tool_name,
            description=description or inspect.getdoc(func) or func.__name__,
            parameters=args_model.model_json_schema(),
            validate=_pydantic_validator(tool_name, args_model),
            handler=func,
            takes_context=takes_context,
            timeout=timeout,
            max_output_chars=max_output_chars,
            keep_last=keep_last,
            summarize=summarize,
        )

    return build(fn) if fn is not None else build


def _args_model(func: Callable[..., Any]) -> tuple[type[BaseModel], bool]:
    hints = get_type_hints(func)
    params = list(inspect.signature(func).parameters.values())
    takes_context = bool(params) and _is_run_context(hints.get(params[0].name))
    if takes_context:
        params = params[1:]
    fields: dict[str, Any] = {}
    for param in params:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"tool {func.__name__}: *args/**kwargs cannot be described to a model")
        annotation = hints.get(param.name, Any)
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (annotation, default)
    model = create_model(f"{func.__name__}_args", __config__=ConfigDict(extra="forbid"), **fields)
    return model, takes_context


def _is_run_context(annotation: Any) -> bool:
    origin = getattr(annotation, "__origin__", annotation)
    return origin is RunContext


__all__ = ["ArgumentValidator", "InvalidArguments", "RunContext", "Tool", "format_output", "tool"]
