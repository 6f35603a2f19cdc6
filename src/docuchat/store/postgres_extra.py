"""Which database locations are PostgreSQL's, and the error when its extra is missing.

The PostgreSQL modules import psycopg, which only the ``postgres`` extra installs,
so the openers import them late, inside :func:`postgres_extra`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from docuchat.errors import ConfigError


def is_postgres(location: str | Path) -> bool:
    """Whether ``location`` is a ``postgres://`` or ``postgresql://`` URL (else a SQLite path)."""
    return str(location).startswith(("postgres://", "postgresql://"))


@contextmanager
def postgres_extra(needs: str) -> Iterator[None]:
    """An ImportError inside becomes a ConfigError: ``needs`` (e.g. "the PostgreSQL store
    needs") the postgres extra, and how to install it."""
    try:
        yield
    except ImportError as exc:
        raise ConfigError(f"{needs} the postgres extra: pip install 'docuchat[postgres]'") from exc
