"""``docuchat ask "question"``: one question, live steps, a cited answer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

import click
from rich.console import Console

from docuchat.agent.trace import JsonlTrace, TraceSink
from docuchat.cli.live import LiveSteps, print_answer
from docuchat.cli.research_options import (
    ResearchOptions,
    require_sources,
    research_agent,
    research_options,
)
from docuchat.cli.store_options import open_cli_store, store_options
from docuchat.errors import DocuchatError, ModelConnectionError
from docuchat.models.base import Message
from docuchat.research import Answer, AnswerReady, Failure, ResearchAgent

EXIT_CODES: dict[Failure, int] = {"model_error": 3, "timeout": 4, "limit": 5, "cancelled": 130}
"""How ``docuchat ask`` exits without an answer (the command's epilog lists every status)."""


async def run_question(
    agent: ResearchAgent,
    question: str,
    live: LiveSteps | None,
    *,
    history: Sequence[Message] = (),
    trace: TraceSink | None = None,
    stream_text: bool = True,
) -> Answer:
    """Run one question, showing each step on ``live`` as it happens."""
    answer: Answer | None = None
    items = agent.stream(question, history=history, trace=trace, stream_text=stream_text)
    async for item in items:
        if isinstance(item, AnswerReady):
            answer = item.answer
        elif live is not None:
            live(item)
    assert answer is not None
    return answer


def fail_if_unreachable(answer: Answer) -> None:
    """A model server that cannot be reached is the user's to fix: say how, exit non-zero."""
    error = answer.model_error
    if isinstance(error, ModelConnectionError):
        raise click.ClickException(
            f"{error}. Start the server, or point docuchat at one that runs: its address comes"
            " from OPENAI_BASE_URL (openai:...) or ANTHROPIC_BASE_URL (anthropic:...); --model"
            " picks another model (`docuchat config` shows the settings in use)."
        )


@click.command(
    "ask",
    epilog="Exit status: 0 answered (the answer may be forced by a limit or come from the "
    "pipeline fallback: both are said); 1 an error before asking, or a model server that "
    "cannot be reached; 2 a bad command line; 3 no answer, the model failed; 4 no answer, "
    "the model did not answer in time (--timeout, DOCUCHAT_MODEL_TIMEOUT); 5 no answer, a "
    "limit ended the research; 130 cancelled.",
)
@click.argument("question")
@research_options
@store_options
@click.option(
    "--trace",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Write the run's events to this JSONL file.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result object as JSON.")
def ask_command(
    question: str,
    research: ResearchOptions,
    db: str | None,
    owner: str | None,
    trace: Path | None,
    as_json: bool,
) -> None:
    """Answer QUESTION from your documents, with numbered, verified citations."""
    store, owner = open_cli_store(db, owner)
    console = Console(soft_wrap=True)
    live = None if as_json else LiveSteps(console)

    async def answer_question() -> Answer:
        async with research_agent(store, owner, research) as agent:
            return await run_question(
                agent, question, live, trace=sink, stream_text=research.stream
            )

    sink = JsonlTrace(trace) if trace is not None else None
    try:
        require_sources(store, owner, db, research)
        answer = asyncio.run(answer_question())
    except DocuchatError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        if sink is not None:
            sink.close()
        store.close()
    if as_json:
        click.echo(json.dumps(answer.to_dict(), ensure_ascii=False, default=str))
    fail_if_unreachable(answer)
    if not as_json:
        print_answer(console, answer)
    if answer.failure is not None:
        click.echo(f"docuchat: {answer.failure_message()}", err=True)
        raise SystemExit(EXIT_CODES[answer.failure])
