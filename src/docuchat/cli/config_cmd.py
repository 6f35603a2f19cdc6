"""``docuchat config``: the effective settings and where each came from."""

from __future__ import annotations

import json
from typing import Any

import click
from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from docuchat.config import config_path, origins, unknown_variables
from docuchat.server.settings import ServerSettings


@click.command("config")
@click.option("--db", default=None, metavar="PATH", help="As the other commands' --db.")
@click.option("--owner", default=None, help="As the other commands' --owner.")
@click.option("--model", default=None, metavar="SPEC", help="As ask's --model.")
@click.option("--embedder", default=None, metavar="SPEC", help="As ask's --embedder.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def config_command(
    db: str | None, owner: str | None, model: str | None, embedder: str | None, as_json: bool
) -> None:
    """Show each setting's value and where it came from: a flag, a DOCUCHAT_* environment
    variable, the config file ($DOCUCHAT_HOME/config.toml) or the default.

    A broken config file, an unknown key or a bad value is reported here too, and so is a
    DOCUCHAT_* variable that no setting reads (a misspelt one is ignored)."""
    flags = {"db": db, "owner": owner, "model": model, "embedder": embedder}
    given: dict[str, Any] = {name: value for name, value in flags.items() if value is not None}
    settings = ServerSettings(**given)
    listed = origins(settings, given)
    unknown = unknown_variables(ServerSettings)
    path = config_path()
    if as_json:
        payload = {
            "config_file": str(path),
            "config_file_exists": path.is_file(),
            "database": settings.db_path,
            "settings": {
                o.name: {"value": _plain(o.value), "source": o.source, "where": o.where}
                for o in listed
            },
            "unknown_variables": {u.name: u.closest for u in unknown},
        }
        click.echo(json.dumps(payload, ensure_ascii=False))
        return
    console = Console(soft_wrap=True)
    state = "" if path.is_file() else " (not there: defaults apply)"
    console.print(f"config file: {escape(str(path))}{state}", highlight=False)
    table = Table()
    for column in ("setting", "value", "from"):
        table.add_column(column, overflow="fold")
    for o in listed:
        where = f"{o.source}: {o.where}" if o.where else o.source
        table.add_row(o.name, escape(str(_plain(o.value))), escape(where))
    console.print(table)
    for variable in unknown:
        console.print(f"{escape(str(variable))}: ignored", highlight=False)


def _plain(value: object) -> object:
    """A value as JSON can hold it (paths as text, tables as objects)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return value if isinstance(value, str | int | float | bool | None) else str(value)
