"""Options shared by the commands that use the document store: ``--db`` and ``--owner``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

from docuchat.cli.db_option import db_option
from docuchat.config import Settings
from docuchat.errors import DocuchatError
from docuchat.store import Store, open_store

F = TypeVar("F", bound=Callable[..., object])

INGEST_HINT = "add some with `docuchat ingest PATH` (files or folders)"


def store_options(command: F) -> F:
    """Add ``--db`` (default: DOCUCHAT_DB, else docuchat.db in DOCUCHAT_HOME) and ``--owner``."""
    command = click.option(
        "--owner", default=None, help="Whose documents (default: DOCUCHAT_OWNER or 'local')."
    )(command)
    return db_option()(command)


def open_cli_store(db: str | None, owner: str | None) -> tuple[Store, str]:
    """The store and owner the options name; a store that cannot be opened is a click error."""
    settings = Settings()
    try:
        return open_store(db or settings.db_path), owner or settings.owner
    except DocuchatError as exc:
        raise click.ClickException(str(exc)) from None


def require_documents(store: Store, owner: str, db: str | None) -> None:
    """A click error that says to ingest when the owner has no documents in this store."""
    if not store.list_documents(owner):
        where = db or Settings().db_path
        raise click.ClickException(
            f"no documents yet for owner {owner!r} in {where}: {INGEST_HINT}"
        )
