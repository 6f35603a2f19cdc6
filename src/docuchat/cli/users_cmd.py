"""``docuchat users``: the server's users and their API keys."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import click

from docuchat.cli.db_option import db_option
from docuchat.config import Settings
from docuchat.errors import DocuchatError
from docuchat.store.accounts import Accounts, open_accounts

_json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


@contextmanager
def _accounts(db: str | None) -> Iterator[Accounts]:
    """The accounts; their errors become click errors."""
    try:
        accounts = open_accounts(db or Settings().db_path)
        try:
            yield accounts
        finally:
            accounts.close()
    except DocuchatError as exc:
        raise click.ClickException(str(exc)) from None


def _print_key(name: str, key: str, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps({"name": name, "api_key": key}))
        return
    click.echo(key)
    click.echo(f"API key of {name}: shown this once, store it now.", err=True)


@click.group("users")
def users() -> None:
    """The server's users and their API keys."""


@users.command("add")
@click.argument("name")
@db_option()
@_json_option
def add_user(name: str, db: str | None, as_json: bool) -> None:
    """Create user NAME and print their API key.

    NAME also owns their documents: `docuchat ingest --owner NAME` adds files
    for them from the command line.
    """
    with _accounts(db) as accounts:
        user, key = accounts.add_user(name)
    _print_key(user.name, key, as_json)


@users.command("key")
@click.argument("name")
@db_option()
@_json_option
def new_key(name: str, db: str | None, as_json: bool) -> None:
    """Print a new API key for user NAME (their other keys keep working)."""
    with _accounts(db) as accounts:
        key = accounts.new_key(name)
    _print_key(name, key, as_json)


@users.command("list")
@db_option()
@_json_option
def list_users(db: str | None, as_json: bool) -> None:
    """List the users."""
    with _accounts(db) as accounts:
        found = accounts.list_users()
    if as_json:
        click.echo(
            json.dumps([{"id": u.id, "name": u.name, "created_at": u.created_at} for u in found])
        )
        return
    for user in found:
        click.echo(f"{user.name}\t{user.created_at}")
    if not found:
        click.echo("No users yet: add one with `docuchat users add NAME`.", err=True)
