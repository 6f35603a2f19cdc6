"""Entry point: one click group; each subcommand lives in its own module."""

from __future__ import annotations

import click

from docuchat import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="docuchat")
def cli() -> None:
    """Ask questions of your own documents; answers cite the exact passages."""


def _register() -> None:
    from docuchat.cli.trace_cmd import trace

    cli.add_command(trace)


_register()


def main() -> None:
    cli()
