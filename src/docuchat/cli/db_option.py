"""``--db``, as every command that opens the database takes it.

Apart from the store's options so that a command importing it loads no store.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

F = TypeVar("F", bound=Callable[..., object])


def db_option(what: str = "The database file") -> Callable[[F], F]:
    """``--db PATH``, described as ``what`` with the default it falls back to."""
    return click.option(
        "--db",
        default=None,
        metavar="PATH",
        help=f"{what} (default: DOCUCHAT_DB, else docuchat.db in DOCUCHAT_HOME).",
    )
