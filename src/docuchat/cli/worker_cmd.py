"""``docuchat worker``: ingest uploads from the queue, beside the server processes."""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any

import click

from docuchat.cli.db_option import db_option
from docuchat.errors import DocuchatError


@click.command("worker")
@db_option("The database the servers use")
@click.option(
    "--embedder",
    "embedder_spec",
    default=None,
    metavar="SPEC",
    help="The embedder for uploads (default: DOCUCHAT_EMBEDDER or auto); the servers' own.",
)
@click.option(
    "--threads",
    type=click.IntRange(1),
    default=None,
    help="Uploads ingested at once (default: DOCUCHAT_INGEST_THREADS or 1).",
)
def worker_command(db: str | None, embedder_spec: str | None, threads: int | None) -> None:
    """Ingest uploaded files from the queue until stopped (Ctrl-C or SIGTERM).

    Uploads wait in the database until a server process or a worker takes them;
    a job whose process dies is taken over by another. Run workers for heavy
    OCR and embedding, and `docuchat serve --ingest-threads 0` to keep them off
    the processes that answer questions.
    """
    from docuchat.server.settings import ServerSettings
    from docuchat.server.worker import run_worker

    flags: dict[str, Any] = {"db": db, "embedder": embedder_spec, "ingest_threads": threads}
    settings = ServerSettings(**{name: value for name, value in flags.items() if value is not None})
    if settings.ingest_threads == 0:
        raise click.ClickException("a worker needs at least one thread (--threads)")
    stop = threading.Event()

    def stop_on(signum: int, _frame: FrameType | None) -> None:
        click.echo(f"docuchat worker: {signal.Signals(signum).name}, stopping", err=True)
        stop.set()

    signal.signal(signal.SIGINT, stop_on)
    signal.signal(signal.SIGTERM, stop_on)
    click.echo(f"docuchat worker: {settings.db_path}, {settings.ingest_threads} threads", err=True)
    try:
        run_worker(settings, stop)
    except DocuchatError as exc:
        raise click.ClickException(str(exc)) from None
