"""``docuchat eval``: measure docuchat on labelled data."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from docuchat.cli.eval_cache import cache_line
from docuchat.cli.eval_qa_cmd import qa_command
from docuchat.config import Settings
from docuchat.embeddings import get_embedder
from docuchat.errors import DocuchatError
from docuchat.evals.beir import DEFAULT_METRICS
from docuchat.evals.retrieval import RetrievalReport, evaluate_retrieval


@click.group("eval")
def eval_group() -> None:
    """Measure retrieval and answers on your own labelled data."""


eval_group.add_command(qa_command)


@eval_group.command("retrieval")
@click.option(
    "--beir",
    "directory",
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="A BEIR-format folder: corpus.jsonl, queries.jsonl and qrels/<split>.tsv.",
)
@click.option(
    "--embedder",
    "embedder_spec",
    default=None,
    metavar="SPEC",
    help="minilm-bf16, minilm-onnx, minilm, openai:<model>, hash[:<dim>], none or auto"
    " (default: DOCUCHAT_EMBEDDER or auto).",
)
@click.option(
    "--query-embedder",
    "query_embedder_spec",
    default=None,
    metavar="SPEC",
    help="Embed the queries with another variant of the documents' model, as ask and search"
    " do with auto (default: --embedder for queries: auto picks minilm-onnx).",
)
@click.option(
    "--k",
    "cutoffs",
    multiple=True,
    type=click.IntRange(1, 1000),
    help="Report nDCG, recall and MRR at this cut-off; repeat for several"
    " (default: nDCG@10, recall@10, recall@100, MRR@10).",
)
@click.option("--split", default="test", show_default=True, help="Which qrels file to score.")
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where indexes of evaluated collections are kept (default: DOCUCHAT_HOME/eval).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the scores as one JSON object.")
def retrieval_command(
    directory: Path,
    embedder_spec: str | None,
    query_embedder_spec: str | None,
    cutoffs: tuple[int, ...],
    split: str,
    cache_dir: Path | None,
    as_json: bool,
) -> None:
    """Score BM25, dense and hybrid search on a labelled collection, side by side.

    The collection is indexed and embedded once; later runs on the same corpus
    reuse that index and its vectors.
    """
    settings = Settings()
    metrics = _metric_names(cutoffs) if cutoffs else DEFAULT_METRICS
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    stderr = Console(stderr=True, soft_wrap=True)
    try:
        spec = embedder_spec or settings.embedder
        embedder = get_embedder(spec, purpose="documents")
        query_embedder = get_embedder(query_embedder_spec or spec, purpose="queries")
        with Progress(
            *columns, TimeRemainingColumn(), console=stderr, disable=as_json, transient=True
        ) as bar:
            task = bar.add_task("loading", total=None)
            report = evaluate_retrieval(
                directory,
                embedder=embedder,
                query_embedder=query_embedder,
                cache_root=cache_dir or settings.home / "eval",
                metrics=metrics,
                split=split,
                progress=lambda done, total, what: bar.update(
                    task, completed=done, total=total, description=what
                ),
            )
    except DocuchatError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        stderr.print(_index_line(report), highlight=False)
        click.echo(json.dumps(report.to_dict()))
    else:
        console = Console(soft_wrap=True)
        console.print(_index_line(report), highlight=False)
        console.print(_table(report, metrics))


def _metric_names(cutoffs: tuple[int, ...]) -> tuple[str, ...]:
    return tuple(
        f"{metric}@{k}" for k in sorted(set(cutoffs)) for metric in ("ndcg", "recall", "mrr")
    )


def _index_line(report: RetrievalReport) -> str:
    index = report.index
    about = (
        f"{index.documents} documents ({index.chunks} chunks), {report.queries} queries,"
        f" embedder {report.embedder or 'none'}"
    )
    if report.query_embedder != report.embedder:
        about += f", queries embedded by {report.query_embedder}"
    cache = cache_line(
        reused=index.reused,
        added=index.added,
        embedded=index.embedded,
        unit="documents",
        where=report.index_path,
    )
    return f"{about}\n{cache}"


def _table(report: RetrievalReport, metrics: tuple[str, ...]) -> Table:
    """One row per metric and latency, one column per method; the best of each row in bold."""
    measured = {method: r for method, r in report.results.items() if r is not None}
    rows = [(name, {m: r.metrics[name] for m, r in measured.items()}, max) for name in metrics]
    rows.append(("p50 ms", {m: r.latency_p50_ms for m, r in measured.items()}, min))
    rows.append(("p95 ms", {m: r.latency_p95_ms for m, r in measured.items()}, min))
    table = Table()
    table.add_column("")
    for method in report.results:
        table.add_column(method, justify="right")
    for label, values, best_of in rows:
        best = best_of(values.values()) if values else None
        digits = 4 if best_of is max else 2
        table.add_row(label, *(_cell(values.get(m), best, digits) for m in report.results))
    return table


def _cell(value: float | None, best: float | None, digits: int) -> str:
    if value is None:
        return "-"
    text = f"{value:.{digits}f}"
    return f"[bold]{text}[/bold]" if value == best else text
