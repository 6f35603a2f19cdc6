"""Entry point: one click group; each subcommand lives in its own module, imported only
when it runs (a cold ``docuchat ask`` never imports the server, the evals or the parsers)."""

from __future__ import annotations

import importlib

import click

from docuchat import __version__
from docuchat.errors import DocuchatError

# name -> "module:attribute" of the click command
COMMANDS = {
    "ingest": "docuchat.cli.ingest_cmd:ingest_command",
    "docs": "docuchat.cli.docs_cmd:docs",
    "search": "docuchat.cli.search_cmd:search_command",
    "ask": "docuchat.cli.ask_cmd:ask_command",
    "chat": "docuchat.cli.chat_cmd:chat_command",
    "serve": "docuchat.cli.serve_cmd:serve_command",
    "mcp": "docuchat.cli.mcp_cmd:mcp_command",
    "users": "docuchat.cli.users_cmd:users",
    "worker": "docuchat.cli.worker_cmd:worker_command",
    "trace": "docuchat.cli.trace_cmd:trace",
    "eval": "docuchat.cli.eval_cmd:eval_group",
    "config": "docuchat.cli.config_cmd:config_command",
}


class LazyGroup(click.Group):
    """A group whose commands are imported by name when they are run (or listed in help).

    A docuchat error that reaches it (a broken config file, a bad setting) is printed as
    one line, never a traceback, and the exit status is 1.
    """

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except DocuchatError as exc:
            raise click.ClickException(str(exc)) from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, _, attribute = target.partition(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="docuchat")
def cli() -> None:
    """Ask questions of your own documents; answers cite the exact passages."""


def main() -> None:
    cli()
