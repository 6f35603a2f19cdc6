"""``docuchat docs list`` and ``docuchat docs remove ID``."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import PurePath

import click
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from docuchat.cli.store_options import INGEST_HINT, open_cli_store, store_options
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
    console = Console()
    if not documents:
        console.print(f"no documents yet: {INGEST_HINT}", highlight=False)
        return
    rows = [
        (d.id, PurePath(d.source).name if d.source else "-", d.title, d.page_count, d.chunk_count)
        for d in documents
    ]
    console.print(_table(rows, console.width))


def _table(rows: list[tuple[str, str, str, int, int]], width: int) -> Table:
    """One line per document within ``width`` columns: the id, pages and chunks whole, the
    file name and the title sharing the rest (2 to 3), ending in "…" where they do not fit."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    room = max(24, width - 16 - len("pages") - len("chunks") - 4 * 3)  # 3 between columns
    names = max((len(row[1]) for row in rows), default=4)
    file_width = min(names, max(room * 2 // 5, room - max(len(row[2]) for row in rows)))
    table.add_column("id", no_wrap=True, min_width=16)
    table.add_column("file", no_wrap=True, overflow="ellipsis", max_width=file_width)
    table.add_column("title", no_wrap=True, overflow="ellipsis", max_width=room - file_width)
    for name in ("pages", "chunks"):
        table.add_column(name, justify="right", no_wrap=True)
    for doc_id, name, title, pages, chunks in rows:
        table.add_row(doc_id, escape(name), escape(title), str(pages), str(chunks))
    return table


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
