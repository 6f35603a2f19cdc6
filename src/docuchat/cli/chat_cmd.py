"""``docuchat chat``: a conversation with follow-up questions, saved between sessions."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack

import click
from rich.console import Console
from rich.markup import escape

from docuchat.cli.ask_cmd import fail_if_unreachable, run_question
from docuchat.cli.live import LiveSteps, print_answer
from docuchat.cli.research_options import (
    ResearchOptions,
    require_sources,
    research_agent,
    research_options,
)
from docuchat.cli.store_options import open_cli_store, store_options
from docuchat.config import Settings
from docuchat.errors import DocuchatError, NotFound
from docuchat.research.conversation import history_messages, title_of, turn_of
from docuchat.store.accounts import Accounts, Conversation, open_accounts

HISTORY_TURNS = 10
EXIT_WORDS = frozenset({"exit", "quit", ":q"})


@click.command("chat")
@click.option(
    "--conversation",
    "conversation_id",
    default=None,
    metavar="ID",
    help="Continue a saved conversation (see --list).",
)
@click.option("--list", "list_only", is_flag=True, help="List saved conversations and exit.")
@research_options
@store_options
def chat_command(
    conversation_id: str | None,
    list_only: bool,
    research: ResearchOptions,
    db: str | None,
    owner: str | None,
) -> None:
    """Ask questions one after another; follow-ups can refer to earlier answers.

    Type a question and press Enter; an empty line, 'exit' or Ctrl-D ends the chat.
    """
    store, owner = open_cli_store(db, owner)
    accounts = open_accounts(db or Settings().db_path)
    console = Console(soft_wrap=True)
    # One event loop for the whole chat, so MCP servers start once; the questions are read
    # between runs, outside the loop (Ctrl-C there still stops the servers cleanly).
    runner = asyncio.Runner()
    servers = AsyncExitStack()
    try:
        if list_only:
            for c in accounts.list_conversations(owner):
                console.print(f"{c.id}  {c.updated_at}  {c.turn_count} turns  {escape(c.title)}")
            return
        require_sources(store, owner, db, research)
        agent = runner.run(servers.enter_async_context(research_agent(store, owner, research)))
        conversation = (
            accounts.get_conversation(owner, conversation_id) if conversation_id else None
        )
        if conversation is not None:
            console.print(
                f"[dim]Continuing “{escape(conversation.title)}” "
                f"({len(conversation.turns)} turns).[/]"
            )
        while (question := _read_question(console)) is not None:
            conversation = conversation or accounts.create_conversation(owner, title_of(question))
            history = history_messages(conversation.turns, HISTORY_TURNS)
            asked = run_question(
                agent, question, LiveSteps(console), history=history, stream_text=research.stream
            )
            answer = runner.run(asked)
            fail_if_unreachable(answer)
            print_answer(console, answer)
            accounts.add_turn(owner, conversation.id, turn_of(answer))
            conversation = _reload(accounts, owner, conversation)
        if conversation is not None:
            console.print(f"[dim]Saved as conversation {conversation.id}.[/]")
    except NotFound:
        raise click.ClickException(f"no conversation {conversation_id!r}") from None
    except DocuchatError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        runner.run(servers.aclose())
        runner.close()
        store.close()
        accounts.close()


def _read_question(console: Console) -> str | None:
    try:
        line = console.input("[bold cyan]you>[/] ")
    except EOFError:
        return None
    line = line.strip()
    return None if not line or line.lower() in EXIT_WORDS else line


def _reload(accounts: Accounts, owner: str, conversation: Conversation) -> Conversation:
    return accounts.get_conversation(owner, conversation.id)
