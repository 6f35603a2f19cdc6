"""Tools: a handler with a JSON schema, built from a typed Python function.

``@tool`` reads the function's signature and docstring; arguments the model
sends are validated against a pydantic model of that signature before the
handler runs. A handler may take a :class:`RunContext` as its first parameter.
Async handlers are awaited; plain functions run in a worker thread so that a
slow one cannot block the loop or escape its timeout.

A handler returns a typed value. The runtime serialises it for the model
(:func:`format_output`) and hands the value itself to everything else: the
``tool_call_finished`` event carries it, so a live view, a stream or a trace
reads fields, never the JSON text the model saw. A value that implements
:class:`ToolOutput` says how it is shown to the model and to people; the
tool's presentation (its ``action`` and how a call is described while it
runs) lives on the :class:`Tool`.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import (
    Any,
    Generic,
    Protocol,
    TypeVar,
    get_type_hints,
    overload,
    runtime_checkable,
)

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from docuchat.agent.events import Action
from docuchat.models.base import ToolSpec
from docuchat.validation import describe

DepsT = TypeVar("DepsT")


@dataclass(slots=True)
class RunContext(Generic[DepsT]):
    """What a tool may know about the run it serves."""

    run_id: str
    deps: DepsT
    iteration: int = 0
    state: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class ToolOutput(Protocol):
    """A typed tool result that says how it is shown."""

    def for_model(self) -> str:
        """The text the model sees."""
        ...

    def summary(self) -> str:
        """One line for people: live views, step events, traces and eviction stubs."""
        ...


Describe = Callable[[Mapping[str, Any], "RunContext[Any]"], str]
"""How a call is described while it runs ("Searching for: rent"), from its arguments."""


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
    action: Action = "analysing"
    describe: Describe | None = None

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.parameters)

    def description_of(self, arguments: Mapping[str, Any], ctx: RunContext[Any]) -> str:
        """The running step's message; a description that fails never breaks a run."""
        if self.describe is not None:
            try:
                return self.describe(arguments, ctx)
            except Exception:  # cosmetic: fall back to the generic message
                pass
        return f"Running {self.name}"

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
    if isinstance(value, ToolOutput):
        return value.for_model()
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    return json.dumps(value, ensure_ascii=False, default=str)


def _pydantic_validator(name: str, model: type[BaseModel]) -> ArgumentValidator:
    def validate(arguments: Mapping[str, Any]) -> dict[str, Any]:
        try:
            parsed = model.model_validate(arguments)
        except ValidationError as error:
            problems = describe(error.errors(), whole="(arguments)")
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
    action: Action = "analysing",
    describe: Describe | None = None,
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
    action: Action = "analysing",
    describe: Describe | None = None,
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
            action=action,
            describe=describe,
        )

    return build(fn) if fn is not None else build


def _args_model(func: Callable[..., Any]) -> tuple[type[BaseModel], bool]:
    # With their extras: ``Annotated[str, Field(max_length=...)]`` reaches the schema.
    hints = get_type_hints(func, include_extras=True)
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


def summary_of(value: Any, content: str) -> str:
    """The one-line summary of a result: the value's own, else the text's first line."""
    if isinstance(value, ToolOutput):
        try:
            return value.summary()
        except Exception:  # a summary is cosmetic; never let it break a run
            pass
    line = content.strip().splitlines()[0] if content.strip() else "(empty)"
    return line if len(line) <= 120 else line[:117] + "..."


__all__ = [
    "Action",
    "ArgumentValidator",
    "Describe",
    "InvalidArguments",
    "RunContext",
    "Tool",
    "ToolOutput",
    "format_output",
    "summary_of",
    "tool",
]
