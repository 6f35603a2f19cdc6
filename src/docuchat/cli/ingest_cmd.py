"""``docuchat ingest PATH...``: files and folders into the store, then their embeddings."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from docuchat.cli.store_options import open_cli_store, store_options
from docuchat.config import Settings
from docuchat.corpus import ingest
from docuchat.embeddings import Embedder, get_embedder, prepare_for_queries
from docuchat.errors import DocuchatError
from docuchat.store import Store


@click.command("ingest")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@store_options
@click.option(
    "--embedder",
    "embedder_spec",
    default=None,
    metavar="SPEC",
    help="minilm-onnx, minilm, openai:<model>, hash[:<dim>], none or auto"
    " (default: DOCUCHAT_EMBEDDER or auto).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
def ingest_command(
    paths: tuple[Path, ...],
    db: str | None,
    owner: str | None,
    embedder_spec: str | None,
    as_json: bool,
) -> None:
    """Add files and folders (recursively: PDF, DOCX, HTML, Markdown, text) to the store.

    Text is searchable as soon as a file is stored; embeddings follow in
    batches and resume where an interrupted run stopped. Files that cannot be
    ingested are listed with the reason; the exit status is 1 if there were any.
    """
    spec = embedder_spec or Settings().embedder
    try:
        embedder = get_embedder(spec, purpose="documents")
    except DocuchatError as exc:
        raise click.ClickException(str(exc)) from None
    store, owner = open_cli_store(db, owner)
    console = Console(stderr=True)
    try:
        with _progress(console, enabled=console.is_terminal and not as_json) as progress:
            task = progress.add_task("reading", total=None)
            report = ingest.ingest_paths(
                store,
                owner,
                paths,
                progress=lambda done, total, name: progress.update(
                    task, completed=done, total=total, description=name
                ),
            )
            embedded, embed_error = _embed(store, owner, embedder, progress)
            if embedder is not None and not embed_error:
                _prepare_for_questions(spec, lambda step: progress.update(task, description=step))
    finally:
        store.close()
    summary = {**report.to_dict(), "embedder": embedder and embedder.name, "embedded": embedded}
    if embed_error:
        summary["embedding_error"] = embed_error
    if as_json:
        click.echo(json.dumps(summary, ensure_ascii=False))
    else:
        _print_summary(Console(soft_wrap=True), report, summary)
    if report.skipped or embed_error:
        raise click.exceptions.Exit(1)


def _embed(
    store: Store, owner: str, embedder: Embedder | None, progress: Progress
) -> tuple[int, str | None]:
    """Embed what is missing; an embedder failure is reported, the stored text stays."""
    if embedder is None:
        return 0, None
    task = progress.add_task(f"embedding ({embedder.name})", total=None)
    try:
        done = ingest.embed_pending(
            store,
            owner,
            embedder,
            progress=lambda done, total, _: progress.update(task, completed=done, total=total),
        )
    except DocuchatError as exc:
        return 0, str(exc)
    return done, None


def _prepare_for_questions(spec: str, show: Callable[[str], object]) -> None:
    """Build the query embedder's model and the reader now, once per home, so that the
    first question after an ingest starts as fast as the others."""
    show("preparing the query embedder")
    query_embedder = prepare_for_queries(spec)
    show("preparing the reader")
    from docuchat.research.reader import prepare_reader  # the agent's package: only here

    prepare_reader(query_embedder)


@contextmanager
def _progress(console: Console, *, enabled: bool) -> Iterator[Progress]:
    columns = (
        TextColumn("{task.description}", table_column=None),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, disable=not enabled, transient=True) as progress:
        yield progress


def _print_summary(
    console: Console, report: ingest.IngestReport, summary: dict[str, object]
) -> None:
    statuses = ", ".join(f"{count} {status}" for status, count in report.statuses().items())
    console.print(
        f"[bold]{len(report.ingested)} documents[/bold]"
        + (f" ({statuses})" if statuses else "")
        + f", {report.pages} pages, {report.chunks} chunks"
    )
    if summary["embedder"]:
        console.print(f"embedded {summary['embedded']} new chunk texts with {summary['embedder']}")
    if "embedding_error" in summary:
        console.print(
            f"[red]embedding stopped:[/red] {escape(str(summary['embedding_error']))}"
            " (the text is stored and searchable; run again to resume)"
        )
    if report.skipped:
        console.print(f"[bold red]{len(report.skipped)} skipped[/bold red]")
        for skipped in report.skipped:
            console.print(
                f"  {escape(skipped.path)}: [red]{escape(skipped.reason)}[/red]"
                f" ({escape(skipped.message)})"
            )
