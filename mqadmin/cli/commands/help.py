"""help: a command's help, as ``mqadmin COMMAND --help`` prints it (``mqadmin help updateTopic``)."""

from __future__ import annotations

from typing import Annotated

import typer

from mqadmin.cli.command import command
from mqadmin.cli.declare import Argument, Option
from mqadmin.cli.errors import CliError


@command("help", "mqadmin help updateTopic", "mqadmin help topicList --schema", "mqadmin help")
def help_command(
    name: Annotated[
        str | None, Argument(metavar="COMMAND", help="A command name (any case).", show_default=False)
    ] = None,
    schema: Annotated[
        bool, Option("--schema", help="Print the JSON Schema of COMMAND's --format json document instead.")
    ] = False,
) -> None:
    """Show the help of COMMAND (in any case, as Java mqadmin accepts command names) with the fields of its
    --format json document, or the help of mqadmin."""
    import sys

    from mqadmin.cli import registry
    from mqadmin.cli.documents import fields_text, shipped_schema
    from mqadmin.cli.typer_app import app, load_command

    root = typer.main.get_command(app)
    root_ctx = root.make_context("mqadmin", [], resilient_parsing=True)
    if name is None:
        typer.echo(root.get_help(root_ctx))
        return
    entry = registry.find(name)
    if entry is None:
        raise registry.no_such_command(name)
    document = shipped_schema(entry.name)
    if schema:
        if document is None:
            raise CliError(f"{entry.name} has no declared JSON document yet", "its document is shown in docs/commands/")
        import json

        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        return
    cmd = load_command(entry)
    typer.echo(cmd.get_help(cmd.make_context(entry.name, [], parent=root_ctx, resilient_parsing=True)))
    if document is not None:
        typer.echo("\n" + fields_text(entry.name, document))
