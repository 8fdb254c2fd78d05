"""Entry point: the Typer app, global options, and mapping of failures to exit codes."""

from __future__ import annotations

import importlib
import os
import sys

import typer

from mqadmin import __version__
from mqadmin.cli.errors import CliError, ExitCode
from mqadmin.cli.options import GLOBAL, OutputFormat

COMMAND_MODULES = ("topic", "cluster", "message", "dev", "metadata")

app = typer.Typer(
    name="mqadmin",
    help="Fast, scriptable admin toolkit for Apache RocketMQ (4.9.x and 5.x).",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"mqadmin {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    format: OutputFormat = typer.Option(
        OutputFormat.table, "--format", help="Output format: a table for people, json for scripts."
    ),
    timeout: float = typer.Option(5.0, "--timeout", help="Per-request timeout in seconds.", min=0.1),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks and protocol details on stderr."),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    GLOBAL.format = format
    GLOBAL.timeout = timeout
    GLOBAL.debug = debug


for _name in COMMAND_MODULES:
    try:
        _mod = importlib.import_module(f"mqadmin.cli.commands.{_name}")
    except ModuleNotFoundError as _e:
        if _e.name != f"mqadmin.cli.commands.{_name}":
            raise
        continue
    _mod.register(app)


def run() -> None:
    """Console-script entry: run the app, turning every failure into a one-line error."""
    try:
        result = app(standalone_mode=False)
    except CliError as e:
        _report(e.message, e.hint)
        sys.exit(int(e.code))
    except KeyboardInterrupt:
        sys.exit(int(ExitCode.INTERRUPTED))
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except typer.Abort:
        sys.exit(int(ExitCode.INTERRUPTED))
    except _click_exceptions() as e:  # usage errors: bad option, missing argument
        ctx = getattr(e, "ctx", None)
        if type(e).__name__ == "NoArgsIsHelpError":  # bare "mqadmin": the help itself
            e.show()
        else:
            command = ctx.command_path if ctx is not None else "mqadmin"
            _report(e.format_message(), f"see: {command} --help")
        sys.exit(int(ExitCode.USAGE))
    except Exception as e:
        if GLOBAL.debug or os.environ.get("MQADMIN_DEBUG"):
            raise
        _report(f"{type(e).__name__}: {e}", "run again with --debug for the traceback")
        sys.exit(int(ExitCode.FAILURE))
    sys.exit(result if isinstance(result, int) else 0)  # click returns typer.Exit's code here


def _click_exceptions() -> type[Exception]:
    # Recent Typer vendors click (typer._click): find the ClickException its usage errors derive from.
    return next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


def _report(message: str, hint: str | None) -> None:
    if GLOBAL.debug:
        import traceback

        traceback.print_exc()
    sys.stderr.write(f"mqadmin: error: {message}\n")
    if hint:
        sys.stderr.write(f"  hint: {hint}\n")
