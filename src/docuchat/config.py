"""Settings shared by the CLI and the server: flags > environment > config file > defaults.

Environment variables are prefixed ``DOCUCHAT_`` (``DOCUCHAT_HOME``,
``DOCUCHAT_DB``, ``DOCUCHAT_MODEL``, ``DOCUCHAT_EMBEDDER``). The config file is
``$DOCUCHAT_HOME/config.toml`` when it exists; every settings class (the
CLI's, the server's) reads that one file and that one environment. A
``DOCUCHAT_*`` variable nothing reads (a misspelt one) is a warning on stderr,
once per process, with the closest known variable: it is ignored, as before.

A mistake is a :class:`~docuchat.errors.ConfigError` that names where it is
and how to fix it: a file that is not TOML (with the line), a key no setting
reads (with the closest one, inside tables too), a value of the wrong kind
(with the file and key, or the environment variable). :func:`origins` tells
where each effective value came from (``docuchat config``).

MCP servers whose tools join the research agent are tables of the config file::

    [mcp.servers.memory]
    command = "npx"
    args = ["-y", "@modelcontextprotocol/server-memory"]
    env = { MEMORY_FILE_PATH = "/home/me/memory.jsonl" }
    timeout = 20                 # seconds per tool call (default 30)

    [mcp.servers.search]
    url = "https://mcp.example.com/mcp"
    headers = { Authorization = "Bearer ..." }
"""

from __future__ import annotations

import difflib
import json
import os
import sys
import tomllib
import types
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Self, TypeGuard, Union, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)

from docuchat.errors import ConfigError

ENV_PREFIX = "DOCUCHAT_"
CONFIG_FILE = "config.toml"
OCR_VARIABLE = ENV_PREFIX + "OCR"
"""The OCR engine (``docuchat.corpus.ocr``): read where it is used, not a setting."""
OTHER_VARIABLES = (OCR_VARIABLE,)
"""The ``DOCUCHAT_*`` variables that are not settings (each setting's is its name)."""

Source = Literal["flag", "env", "file", "default"]
DetailLevel = Literal["brief", "standard", "detailed"]
"""How thoroughly a question is researched (``docuchat.research.detail`` says what each sets)."""
ToolSet = Literal["basic", "rich"]
"""basic: search and open passages; rich adds reading whole documents and overviews."""


ANSWER_TIMEOUT = 60.0
"""Seconds a question may take by default: a person waits about that long for an answer."""
MODEL_TIMEOUT = 30.0
"""Seconds one model call may take by default: hosted models answer a research step in a few;
raise it for a slow local model."""


def default_home() -> Path:
    env = os.environ.get("DOCUCHAT_HOME")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_DATA_HOME")
    return Path(xdg) / "docuchat" if xdg else Path.home() / ".local" / "share" / "docuchat"


def config_path() -> Path:
    return default_home() / CONFIG_FILE


def read_config_file(path: Path) -> dict[str, Any]:
    """The file's tables; a missing file is empty, a broken one a ``ConfigError``."""
    if not path.is_file():
        return {}
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{path} is not valid TOML: {exc}. Fix that line"
            ' (strings need quotes: model = "offline"), or move the file away to use the defaults.'
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} cannot be read: {exc}") from None


def unknown_keys(data: Mapping[str, Any], model: type[BaseModel], prefix: str = "") -> list[str]:
    """One line per key of ``data`` that no field of ``model`` reads, with the closest known
    key; tables are checked against the model of the field that holds them."""
    problems = []
    for key, value in data.items():
        field = model.model_fields.get(key)
        if field is None:
            problems.append(f"unknown key {prefix + key!r}{_closest(key, model, prefix)}")
        elif isinstance(value, dict):
            problems += _unknown_in_table(value, field.annotation, f"{prefix}{key}.")
    return problems


def _unknown_in_table(table: dict[str, Any], annotation: Any, prefix: str) -> list[str]:
    """Check a table against the model its field holds: the model itself, or the model of
    each entry of a ``dict[str, Model]`` (a table of named tables, like ``[mcp.servers.x]``)."""
    options = _options(annotation)
    if len(options) != 1:
        return []
    [kind] = options
    if _is_model(kind):
        return unknown_keys(table, kind, prefix)
    entry = get_args(kind)[1] if get_origin(kind) is dict else None
    if not _is_model(entry):
        return []
    return [
        problem
        for name, value in table.items()
        if isinstance(value, dict)
        for problem in unknown_keys(value, entry, f"{prefix}{name}.")
    ]


def _options(annotation: Any) -> list[Any]:
    """The types a field may hold: the members of ``X | Y | None`` but None, else itself."""
    if get_origin(annotation) in (Union, types.UnionType):
        return [a for a in get_args(annotation) if a is not type(None)]
    return [annotation]


def _is_model(kind: Any) -> TypeGuard[type[BaseModel]]:
    return isinstance(kind, type) and issubclass(kind, BaseModel)


def _closest(key: str, model: type[BaseModel], prefix: str) -> str:
    close = difflib.get_close_matches(key, list(model.model_fields), n=1, cutoff=0.6)
    return f" (did you mean {prefix + close[0]!r}?)" if close else ""


def _settings_schema(cls: type[Settings], names: Iterable[str]) -> type[Settings]:
    """The settings class whose fields ``names`` may be: every class reads the one file and
    the one environment, so a setting of the server's is known to the CLI's too."""
    if all(name in cls.model_fields for name in names):
        return cls  # the usual case: no need to look further
    # Imported here: the server's settings are light, but the CLI's commands never need them.
    from docuchat.server.settings import ServerSettings

    return ServerSettings if issubclass(ServerSettings, cls) else cls


MCPServerName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,32}$")]
"""A server's name: it prefixes the server's tool names that collide with others."""


class MCPServerConfig(BaseModel):
    """One MCP server: a command to run (stdio) or a URL (streamable HTTP)."""

    model_config = ConfigDict(frozen=True)

    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    """Added to the few variables a server inherits (PATH, HOME, ...)."""
    url: str | None = Field(default=None, pattern=r"^https?://")
    headers: dict[str, str] = Field(default_factory=dict)
    timeout: float = Field(default=30.0, gt=0)
    """Seconds a tool call may take before the model gets a timeout error instead."""
    startup_timeout: float = Field(default=30.0, gt=0)

    @model_validator(mode="after")
    def _one_transport(self) -> Self:
        if (self.command is None) == (self.url is None):
            raise ValueError("an MCP server needs either a command or a url, not both")
        return self


class MCPSettings(BaseModel):
    servers: dict[MCPServerName, MCPServerConfig] = Field(default_factory=dict)


class ResearchConfig(BaseModel):
    """``[research]``: how questions are researched unless a flag or a request says otherwise.

    ``models_allowed`` lists the models a question may use, weakest first (unset: the
    configured one, and on the command line any); a model that comes before
    ``min_model_for_agent`` in it answers with the fixed pipeline, labelled, not as an agent.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    detail: DetailLevel = "standard"
    tools: ToolSet = "basic"
    max_tool_calls: int | None = Field(default=None, ge=1)
    max_iterations: int | None = Field(default=None, ge=1)
    timeout: float | None = Field(default=None, gt=0)
    """Seconds a question may take, research, forced synthesis and pipeline fallback
    together (unset: ``ANSWER_TIMEOUT``)."""
    models_allowed: tuple[str, ...] | None = None
    min_model_for_agent: str | None = None

    @model_validator(mode="after")
    def _ranked(self) -> Self:
        bar = self.min_model_for_agent
        if bar is not None and (self.models_allowed is None or bar not in self.models_allowed):
            raise ValueError(
                "min_model_for_agent must be one of models_allowed (listed weakest first),"
                " which ranks the models"
            )
        return self


class Settings(BaseModel):
    """The shared settings. ``Settings(**flags)`` resolves every field from its flag, else
    ``DOCUCHAT_<NAME>``, else the config file, else its default.

    Resolved here rather than by pydantic-settings: importing that costs a cold command
    about 0.2 s of CPU, and the sources are four dictionaries.
    """

    model_config = ConfigDict(extra="ignore")

    home: Path = Field(default_factory=default_home)
    db: str | None = None
    model: str = "auto"
    """A model server that answers here, else the offline model (``docuchat.models.auto``)."""
    embedder: str = "auto"
    owner: str = "local"
    mcp: MCPSettings = Field(default_factory=MCPSettings)
    research: ResearchConfig = Field(default_factory=ResearchConfig)
    model_timeout: float = Field(default=MODEL_TIMEOUT, gt=0)
    """Seconds one model call may take, its retries included (a question's own time is
    ``[research] timeout``)."""
    context_window: int | None = Field(default=None, gt=0)
    """The model's context window in tokens, when its server does not report it."""

    def __init__(self, **flags: Any) -> None:
        """Keyword arguments are the flags; a value of the wrong kind (from any source) is
        a ``ConfigError`` that says where it came from."""
        _warn_of_unknown_variables(type(self))
        values = _resolve(type(self), flags)
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise ConfigError(_invalid(type(self), exc, flags)) from None

    @property
    def db_path(self) -> str:
        """The database: a SQLite file path, or a ``postgresql://`` URL."""
        return self.db or str(self.home / "docuchat.db")


def _resolve(cls: type[Settings], flags: Mapping[str, Any]) -> dict[str, Any]:
    """Each field's value from the first source that has one (flags > env > file)."""
    path = config_path()
    data = read_config_file(path)
    schema = _settings_schema(cls, data)
    problems = unknown_keys(data, schema)
    if problems:
        known = ", ".join(sorted(schema.model_fields))
        raise ConfigError(f"{path}: " + "; ".join(problems) + f". Known keys: {known}.")
    values = {}
    for name, field in cls.model_fields.items():
        source, where = _source(name, flags, data, path)
        if source == "flag":
            values[name] = flags[name]
        elif source == "env":
            values[name] = _from_env(where, field.annotation)
        elif source == "file":
            values[name] = data[name]
    return values


def _source(
    name: str, flags: Mapping[str, Any], data: Mapping[str, Any], path: Path
) -> tuple[Source, str]:
    """Where field ``name`` comes from, and the flag, variable or file key that sets it."""
    variable = _env_variable(name)
    if name in flags:
        return "flag", "--" + name.replace("_", "-")
    if variable is not None:
        return "env", variable
    if name in data:
        return "file", f"{path}: {name}"
    return "default", ""


@dataclass(frozen=True, slots=True)
class UnknownVariable:
    """A ``DOCUCHAT_*`` environment variable that docuchat does not read."""

    name: str
    closest: str | None
    """The known variable it is most like, if one is close."""

    def __str__(self) -> str:
        hint = f" (did you mean {self.closest}?)" if self.closest else ""
        return f"unknown setting {self.name}{hint}"


def unknown_variables(cls: type[Settings]) -> list[UnknownVariable]:
    """The environment's ``DOCUCHAT_*`` variables (in any case) that neither a setting of any
    settings class nor ``OTHER_VARIABLES`` names, by name."""
    fields = {
        key.upper().removeprefix(ENV_PREFIX).lower(): key
        for key in os.environ
        if key.upper().startswith(ENV_PREFIX) and key.upper() not in OTHER_VARIABLES
    }
    schema = _settings_schema(cls, fields)
    known = [name.upper() for name in schema.model_fields]
    known += [variable.removeprefix(ENV_PREFIX) for variable in OTHER_VARIABLES]
    return [
        UnknownVariable(key, _closest_variable(field.upper(), known))
        for field, key in sorted(fields.items(), key=lambda item: item[1])
        if field not in schema.model_fields
    ]


def _closest_variable(name: str, known: list[str]) -> str | None:
    """Compared without the prefix, which every variable shares."""
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return ENV_PREFIX + close[0] if close else None


_warned: set[str] = set()
"""The unknown variables this process has warned of: each once, however many commands or
settings objects read the environment."""


def _warn_of_unknown_variables(cls: type[Settings]) -> None:
    for unknown in unknown_variables(cls):
        if unknown.name not in _warned:
            _warned.add(unknown.name)
            print(f"docuchat: warning: {unknown}; it is ignored", file=sys.stderr)


def _from_env(variable: str, annotation: Any) -> Any:
    """A variable's text; JSON for a table (``DOCUCHAT_MCP='{"servers": {...}}'``)."""
    raw = os.environ[variable]
    if not _is_table(annotation):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        raise ConfigError(f"environment variable {variable} must be a JSON object") from None


def _is_table(annotation: Any) -> bool:
    return any(get_origin(kind) is dict or _is_model(kind) for kind in _options(annotation))


@dataclass(frozen=True, slots=True)
class Origin:
    """Where one effective setting came from."""

    name: str
    value: Any
    source: Source
    where: str
    """The flag (``--model``), the variable (``DOCUCHAT_MODEL``), the file and key, or ""."""


def origins(settings: Settings, flags: Mapping[str, Any] | None = None) -> list[Origin]:
    """Each setting's value and its source, in field order; ``flags`` are those the settings
    were built with."""
    path = config_path()
    data = read_config_file(path)
    return [
        Origin(name, getattr(settings, name), *_source(name, flags or {}, data, path))
        for name in type(settings).model_fields
    ]


def _env_variable(name: str) -> str | None:
    """The environment variable that sets field ``name``, if one is set (in any case)."""
    wanted = (ENV_PREFIX + name).upper()
    return next((key for key in os.environ if key.upper() == wanted), None)


def _invalid(cls: type[Settings], error: ValidationError, flags: Mapping[str, Any]) -> str:
    path = config_path()
    data = read_config_file(path)
    problems = []
    for item in error.errors():
        name = str(item["loc"][0]) if item["loc"] else ""
        source, where = _source(name, flags, data, path)
        if source == "env":
            where = f"environment variable {where}"
        elif source == "file":
            where = f"{path}: " + ".".join(str(part) for part in item["loc"])
        problems.append(f"{where or name}: {item['msg']} (got {item.get('input')!r})")
    return "invalid setting: " + "; ".join(problems)
