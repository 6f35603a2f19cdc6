"""``docuchat docs list`` and ``docuchat docs remove ID``."""

from __future__ import annotations

import json
from dataclasses import asdict

import click
from rich.console import Console
from rich.table import Table

from docuchat.cli.store_options import open_cli_store, store_options
from docuchat.errors import NotFound


@click.group("docs")
def docs() -> None:
    """List and remove stored documents."""


@docs.command("list")
@store_options
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array of documents.")
def list_documents(db: str | None, owner: str | None, as_json: bool) -> None:
    """List the owner's documents, oldest first."""
    store, owner = open_cli_store(db, owner)
    try:
        documents = store.list_documents(owner)
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps([asdict(d) for d in documents], ensure_ascii=False))
        return
    console = Console(soft_wrap=True)
    if not documents:
        console.print("no documents yet: add some with [bold]docuchat ingest PATH[/bold]")
        return
    table = Table()
    table.add_column("id", no_wrap=True, min_width=16)
    table.add_column("title", overflow="fold")
    for name in ("pages", "chunks"):
        table.add_column(name, justify="right")
    table.add_column("type", overflow="fold")
    for d in documents:
        table.add_row(d.id, d.title, str(d.page_count), str(d.chunk_count), d.media_type)
    console.print(table)


@docs.command("remove")
@click.argument("doc_id", metavar="ID")
@store_options
def remove_document(doc_id: str, db: str | None, owner: str | None) -> None:
    """Remove a document with its chunks and vectors."""
    store, owner = open_cli_store(db, owner)
    try:
        title = store.get_document(owner, doc_id).title
        store.remove_document(owner, doc_id)
    except NotFound as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        store.close()
    click.echo(f"removed {doc_id} ({title})")
