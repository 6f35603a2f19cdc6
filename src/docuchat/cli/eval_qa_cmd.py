"""``docuchat eval qa``: answers and abstentions end to end, on SQuAD 2.0 (``--squad FILE``)
or on one part of a business evaluation set (``--set DIR``)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from docuchat.cli.eval_cache import cache_line
from docuchat.cli.eval_set_table import set_table
from docuchat.config import Settings
from docuchat.embeddings import get_embedder
from docuchat.errors import DocuchatError
from docuchat.evals.business import evaluate_set
from docuchat.evals.business_set import EvalSet, load_set
from docuchat.evals.harness import IndexStatus
from docuchat.evals.qa import QAReport, SquadDataset, evaluate, load_squad
from docuchat.models.base import Model
from docuchat.research.models import research_model
from docuchat.research.relevance import BY_SCORE, THRESHOLDS


@click.command("qa")
@click.option(
    "--squad",
    "squad_file",
    default=None,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A SQuAD 2.0 JSON file; each article becomes one document.",
)
@click.option(
    "--set",
    "set_folder",
    default=None,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="One part of a business evaluation set (a folder with documents/ and"
    " questions.jsonl, e.g. evals/business/dev).",
)
@click.option(
    "--model",
    "model_spec",
    default="offline",
    show_default=True,
    metavar="SPEC",
    help="offline, openai:<model>, anthropic:<model> or text:<spec>.",
)
@click.option(
    "--embedder",
    "embedder_spec",
    default=None,
    metavar="SPEC",
    help="auto, minilm-onnx, minilm, openai:<model> or hash[:<dim>] make search hybrid (the"
    " offline model ranks sentences by it too); none searches with BM25 alone"
    " (default: DOCUCHAT_EMBEDDER or auto, as for docuchat ask).",
)
@click.option(
    "--limit", type=click.IntRange(min=1), default=None, help="Ask only the first N questions."
)
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where indexed articles and their vectors are kept (default: DOCUCHAT_HOME/eval).",
)
@click.option(
    "--decision",
    type=click.Choice(["gates", "score"]),
    default="gates",
    show_default=True,
    help="Whether a sentence addresses a question: it passes every gate, or its learned score"
    " reaches the fitted threshold (docs/readme/offline_eval.md).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the scores as one JSON object.")
def qa_command(
    squad_file: Path | None,
    set_folder: Path | None,
    model_spec: str,
    embedder_spec: str | None,
    limit: int | None,
    cache_dir: Path | None,
    decision: str,
    as_json: bool,
) -> None:
    """Ask every question through the research agent and score the answers.

    --squad: answerable questions: does the answer contain a gold answer (answer_match),
    does a verified citation point into the gold paragraph (citation_match), token F1;
    unanswerable ones: did it abstain. Also tool calls, model calls, prompt tokens and
    answer length per question.

    --set: per kind (fact, two_part, comparison, follow_up): right (a gold answer appears
    for every part, and a verified citation's quote overlaps the gold quote of a single
    part, or its passage holds each part's gold quote), found, quoted, cited, declined;
    unanswerable questions declined, per category; wrong answers presented as answers, of
    those answered and of all. Follow-ups are asked as conversations.

    Both report latency per question; the documents are indexed and embedded once, and
    later runs on the same data reuse that index.
    """
    if (squad_file is None) == (set_folder is None):
        raise click.UsageError("give either --squad FILE or --set DIR")
    settings = Settings()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    stderr = Console(stderr=True, soft_wrap=True)
    try:
        dataset = load_squad(squad_file) if squad_file else None
        eval_set = load_set(set_folder) if set_folder else None
        model = research_model(model_spec)
        embedder = get_embedder(embedder_spec or settings.embedder)
        with Progress(
            *columns,
            TimeRemainingColumn(),
            console=stderr,
            disable=as_json,
            transient=True,
        ) as bar:
            task = bar.add_task("ingesting", total=None)
            options: dict[str, Any] = {
                "embedder": embedder,
                "cache_root": cache_dir or settings.home / "eval",
                "limit": limit,
                "thresholds": BY_SCORE if decision == "score" else THRESHOLDS,
                "progress": lambda done, total, what: bar.update(
                    task, completed=done, total=total, description=what
                ),
            }
            outcome = (
                _set_outcome(eval_set, model, options)
                if eval_set is not None
                else _squad_outcome(dataset, model, options)
            )
    except DocuchatError as exc:
        raise click.ClickException(str(exc)) from None
    about = (
        f"{outcome.asked}, model {model_spec}, embedder {embedder.name if embedder else 'none'}"
        f"\n{_index_line(outcome.index, outcome.unit)}"
    )
    if as_json:
        stderr.print(about, highlight=False)
        click.echo(json.dumps(outcome.scores))
        return
    console = Console(soft_wrap=True)
    console.print(about, highlight=False)
    console.print(outcome.table)


@dataclass(frozen=True, slots=True)
class _Outcome:
    asked: str
    """What was asked of what: "950 questions over 48 articles"."""
    unit: str
    index: IndexStatus | None
    scores: dict[str, Any]
    table: Table


def _set_outcome(eval_set: EvalSet, model: Model, options: dict[str, Any]) -> _Outcome:
    report = asyncio.run(evaluate_set(eval_set, model, **options))
    asked = f"{len(report.results)} questions over {len(eval_set.documents)} documents"
    return _Outcome(
        f"{asked} of {eval_set.folder}",
        "documents",
        report.index,
        report.to_dict(),
        set_table(report),
    )


def _squad_outcome(dataset: SquadDataset | None, model: Model, options: dict[str, Any]) -> _Outcome:
    assert dataset is not None
    report = asyncio.run(evaluate(dataset, model, **options))
    asked = f"{len(report.results)} questions over {len(dataset.articles)} articles"
    return _Outcome(asked, "articles", report.index, report.to_dict(), _table(report))


def _index_line(index: IndexStatus | None, unit: str) -> str:
    if index is None or index.path is None:
        return "indexed in a temporary folder"
    return cache_line(
        reused=index.reused,
        added=index.added,
        embedded=index.embedded,
        unit=unit,
        where=index.path,
    )


def _table(report: QAReport) -> Table:
    scores = report.to_dict()
    answerable, unanswerable = scores["answerable"], scores["unanswerable"]
    per_question, latency = scores["per_question"], scores["latency_ms"]
    table = Table(show_header=False)
    table.add_column("")
    table.add_column("", justify="right")
    rows = [
        (f"answerable ({answerable['n']}): answer_match", f"{answerable['answer_match']:.3f}"),
        ("  citation_match", f"{answerable['citation_match']:.3f}"),
        ("  shown as an answer", f"{answerable['presented']:.3f}"),
        ("  citation_match and shown as one", f"{answerable['citation_match_presented']:.3f}"),
        ("  F1", f"{answerable['f1']:.3f}"),
        ("  answer words", f"{answerable['answer_words']:.1f}"),
        (f"unanswerable ({unanswerable['n']}): abstained", f"{unanswerable['abstained']:.3f}"),
        ("  shown as an answer", f"{unanswerable['presented']:.3f}"),
        ("per question: tool calls", f"{per_question['tool_calls']:.2f}"),
        ("  model calls", f"{per_question['model_calls']:.2f}"),
        ("  prompt tokens", f"{per_question['prompt_tokens']:.0f}"),
        ("  answer words", f"{per_question['answer_words']:.1f}"),
        ("latency p50 / p95 ms", f"{latency['p50']:.0f} / {latency['p95']:.0f}"),
    ]
    for label, value in rows:
        table.add_row(label, value)
    return table
