"""help: a command's help, as ``mqadmin COMMAND --help`` prints it (``mqadmin help updateTopic``)."""

from __future__ import annotations

from typing import Annotated

import typer

from mqadmin.cli.command import command
from mqadmin.cli.declare import Argument


@command("help", "mqadmin help updateTopic", "mqadmin help")
def help_command(
    name: Annotated[
        str | None, Argument(metavar="COMMAND", help="A command name (any case).", show_default=False)
    ] = None,
) -> None:
    """Show the help of COMMAND (in any case, as Java mqadmin accepts command names), or of mqadmin."""
    from mqadmin.cli import registry
    from mqadmin.cli.typer_app import app, load_command

    root = typer.main.get_command(app)
    root_ctx = root.make_context("mqadmin", [], resilient_parsing=True)
    if name is None:
        typer.echo(root.get_help(root_ctx))
        return
    entry = registry.find(name)
    if entry is None:
        raise registry.no_such_command(name)
    cmd = load_command(entry)
    typer.echo(cmd.get_help(cmd.make_context(entry.name, [], parent=root_ctx, resilient_parsing=True)))
