"""``docuchat search "query"``: hybrid search over the stored documents."""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.text import Text

from docuchat.cli.store_options import open_cli_store, require_documents, store_options
from docuchat.config import Settings
from docuchat.embeddings import get_embedder
from docuchat.errors import DocuchatError
from docuchat.search import MODES, HybridSearcher, Mode, SearchResult
from docuchat.store import DocumentFilter


@click.command("search")
@click.argument("query")
@click.option("--k", "k", default=10, show_default=True, type=click.IntRange(1, 1000))
@click.option("--mode", type=click.Choice(MODES), default="hybrid", show_default=True)
@click.option("--doc", "doc_ids", multiple=True, metavar="ID", help="Only in these documents.")
@store_options
@click.option(
    "--embedder",
    "embedder_spec",
    default=None,
    metavar="SPEC",
    help="The embedder the documents were ingested with (default: DOCUCHAT_EMBEDDER or auto).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the results as one JSON object.")
def search_command(
    query: str,
    k: int,
    mode: Mode,
    doc_ids: tuple[str, ...],
    db: str | None,
    owner: str | None,
    embedder_spec: str | None,
    as_json: bool,
) -> None:
    """Find the passages that best match QUERY (BM25 and vectors, fused by rank)."""
    store, owner = open_cli_store(db, owner)
    where = DocumentFilter(doc_ids=frozenset(doc_ids)) if doc_ids else None
    try:
        require_documents(store, owner, db)
        spec = embedder_spec or Settings().embedder
        embedder = None if mode == "bm25" else get_embedder(spec, purpose="queries")
        searcher = HybridSearcher(store, embedder)
        results = searcher.search(owner, query, k=k, where=where, mode=mode)
    except DocuchatError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        store.close()
    if as_json:
        payload = {"query": query, "mode": mode, "results": [r.to_dict() for r in results]}
        click.echo(json.dumps(payload, ensure_ascii=False))
    else:
        _print_results(Console(soft_wrap=True), results)


def _print_results(console: Console, results: list[SearchResult]) -> None:
    if not results:
        console.print("no matching passages")
    for number, result in enumerate(results, 1):
        pages = (
            f"p. {result.page}"
            if result.page == result.page_end
            else f"pp. {result.page}-{result.page_end}"
        )
        ranks = ", ".join(
            f"{name} #{rank}"
            for name, rank in (("bm25", result.bm25_rank), ("vector", result.vector_rank))
            if rank is not None
        )
        heading = Text.assemble(
            (f"{number}. ", "bold"),
            (result.title, "bold"),
            f"  {pages}  ",
            (
                f"doc {result.doc_id}  chunk {result.chunk_id}  score {result.score:.4f} ({ranks})",
                "dim",
            ),
        )
        snippet = Text(result.snippet.text)
        for start, end in result.snippet.highlights:
            snippet.stylize("bold yellow", start, end)
        console.print(heading)
        console.print(snippet)
        console.print()
