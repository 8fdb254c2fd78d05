"""The root app: global options, commands loaded lazily from the registry, and the mapping of every
failure to a one-line error and an exit code."""

from __future__ import annotations

import importlib
import inspect
import sys
from typing import Any

import typer
from typer.core import TyperGroup

from mqadmin import __version__
from mqadmin.cli import registry
from mqadmin.cli.errors import CliError, ExitCode
from mqadmin.cli.options import (
    CONNECTION_OPTIONS,
    DebugOpt,
    FormatOpt,
    TimeoutOpt,
    debug_enabled,
    set_globals,
)


class CommandGroup(TyperGroup):
    """Commands from ``registry``: listed from the table, imported on first use, found in any case."""

    def list_commands(self, ctx: Any) -> list[str]:
        return [e.name for e in registry.COMMANDS]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        entry = registry.find(cmd_name)
        if entry is None:
            return super().get_command(ctx, cmd_name)
        return load_command(entry)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        for section in registry.SECTIONS:
            rows = [(e.name, e.summary) for e in registry.COMMANDS if e.section == section]
            if rows:
                with formatter.section(section):
                    formatter.write_dl(rows)


_LOADED: dict[str, Any] = {}


def load_command(entry: registry.Entry) -> Any:
    """The click command of a registry entry (its module imported on first use)."""
    if entry.name not in _LOADED:
        from mqadmin.cli.command import APPS

        module = importlib.import_module(f"mqadmin.cli.commands.{entry.module}")
        sub_app = APPS.get(entry.name)
        if sub_app is None:
            raise RuntimeError(f"{module.__name__} does not register the command {entry.name}")
        cmd = typer.main.get_command(sub_app)
        cmd.name = entry.name
        plain_metavars(cmd)
        _LOADED[entry.name] = cmd
    return _LOADED[entry.name]


_METAVARS = {
    "IntRange": "N",
    "Int": "N",
    "FloatRange": "NUMBER",
    "Float": "NUMBER",
    "TyperPath": "PATH",
    "Path": "PATH",
    "String": "TEXT",
}


def plain_metavars(cmd: Any) -> None:
    """Options without a metavar get a plain one (``N``, ``PATH``) instead of Typer's ``<int range>``."""
    for param in cmd.params:
        if getattr(param, "metavar", "") is None and not getattr(param, "is_flag", False):
            name = type(param.type).__name__.removesuffix("ParamType")
            if name in _METAVARS:
                param.metavar = _METAVARS[name]
    for sub in getattr(cmd, "commands", {}).values():
        plain_metavars(sub)


app = typer.Typer(
    name="mqadmin",
    cls=CommandGroup,
    help="Fast, scriptable admin toolkit for Apache RocketMQ (4.9.x and 5.x).",
    epilog="Global options also work after the command. Run 'mqadmin help COMMAND' for a command's help.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"mqadmin {__version__}")
        raise typer.Exit()


def root(
    format: FormatOpt = None,
    timeout: TimeoutOpt = None,
    debug: DebugOpt = None,
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    **connection: Any,
) -> None:
    set_globals(format, timeout, debug, **connection)


_root_sig = inspect.signature(root, eval_str=True)
root.__signature__ = _root_sig.replace(  # type: ignore[attr-defined]
    parameters=[
        *(p for p in _root_sig.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD),
        *(
            inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=a)
            for n, a in CONNECTION_OPTIONS
        ),
    ]
)
app.callback()(root)


def main(argv: list[str] | None = None) -> int:
    """Run the app and return the exit code, turning every failure into a one-line error."""
    from mqadmin.cli.options import reset_globals

    reset_globals()
    try:
        result = app(args=argv, prog_name="mqadmin", standalone_mode=False)
    except CliError as e:
        _report(e.message, e.hint)
        return int(e.code)
    except typer.Exit as e:
        return e.exit_code
    except typer.Abort:
        return int(ExitCode.INTERRUPTED)
    except (KeyboardInterrupt, BrokenPipeError):
        raise
    except SystemExit:
        if type(sys.stdout).__name__ == "PacifyFlushWrapper":  # click's answer to EPIPE on stdout
            return int(ExitCode.BROKEN_PIPE)
        raise
    except _click_exceptions() as e:  # usage errors: bad option, missing argument
        if type(e).__name__ == "NoArgsIsHelpError":  # bare "mqadmin": the help itself
            e.show()
            return int(ExitCode.OK)
        ctx = getattr(e, "ctx", None)
        command = ctx.command_path if ctx is not None else "mqadmin"
        _report(e.format_message(), f"see: {command} --help")
        return int(ExitCode.USAGE)
    except Exception as e:
        _report(f"{type(e).__name__}: {e}", "run again with --debug for the traceback")
        return int(ExitCode.FAILURE)
    return result if isinstance(result, int) else 0  # click returns typer.Exit's code here


def _click_exceptions() -> type[Exception]:
    # Typer vendors click (typer._click): find the ClickException its usage errors derive from.
    return next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


def _report(message: str, hint: str | None) -> None:
    from mqadmin.cli.render import escape

    if debug_enabled() and sys.exc_info()[0] is not None:
        import traceback

        traceback.print_exc()
    lines = escape(message).splitlines() or [""]
    sys.stderr.write(f"mqadmin: error: {lines[0]}\n")
    if hint:
        sys.stderr.write(f"  hint: {escape(hint)}\n")
