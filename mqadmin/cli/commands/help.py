"""help: a command's help, as ``mqadmin COMMAND --help`` prints it (``mqadmin help updateTopic``)."""

from __future__ import annotations

from typing import Annotated

import typer

from mqadmin.cli.command import command
from mqadmin.cli.declare import Argument, Option
from mqadmin.cli.errors import CliError


@command(
    "help",
    "mqadmin help updateTopic",
    "mqadmin help topicList --schema",
    "mqadmin help profile list --schema",
    "mqadmin help",
)
def help_command(
    name: Annotated[
        str | None, Argument(metavar="COMMAND", help="A command name (any case).", show_default=False)
    ] = None,
    subcommand: Annotated[
        str | None,
        Argument(metavar="[SUBCOMMAND]", help="A subcommand of COMMAND (profile, dev).", show_default=False),
    ] = None,
    schema: Annotated[
        bool, Option("--schema", help="Print the JSON Schema of COMMAND's --format json document instead.")
    ] = False,
) -> None:
    """Show the help of COMMAND (in any case, as Java mqadmin accepts command names) or of its SUBCOMMAND with the
    fields of its --format json document, or the help of mqadmin."""
    import sys

    from mqadmin.cli import registry
    from mqadmin.cli.command import APPS
    from mqadmin.cli.documents import fields_text, shipped_schema
    from mqadmin.cli.errors import usage_error
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
    ctx = cmd.make_context(entry.name, [], parent=root_ctx, resilient_parsing=True)
    full = entry.name
    if subcommand is not None:
        if entry.name not in APPS:
            raise usage_error(f"{entry.name} has no subcommands", f"see: mqadmin help {entry.name}")
        sub = cmd.get_command(ctx, subcommand)
        if sub is None:
            known = ", ".join(cmd.list_commands(ctx))
            raise usage_error(f"{entry.name} has no subcommand {subcommand!r}", f"its subcommands: {known}")
        full = f"{entry.name} {sub.name}"
        cmd, ctx = sub, sub.make_context(sub.name, [], parent=ctx, resilient_parsing=True)
    document = shipped_schema(full)
    if schema:
        if document is None:
            if entry.name in APPS:
                why = f"{full} prints no JSON document" if subcommand else f"{full} has subcommands"
                raise usage_error(why, f"each subcommand's: mqadmin help {entry.name} SUBCOMMAND --schema")
            raise CliError(f"{full} has no declared JSON document yet", "its document is shown in docs/commands/")
        import json

        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        return
    typer.echo(cmd.get_help(ctx))
    if document is not None:
        typer.echo("\n" + fields_text(full, document))
    elif entry.name in APPS and subcommand is None:
        typer.echo(f"\nJSON documents: mqadmin help {entry.name} SUBCOMMAND (each subcommand's fields).")
