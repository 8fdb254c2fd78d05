"""The Typer app: the root group with the global options, each command built from its declarations on first
use, ``--help``, shell completion, the man page, and every command line the fast parser leaves to Typer
(usage errors included), mapped to a one-line error and an exit code."""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from typer._click.exceptions import ClickException
from typer.core import TyperGroup

from mqadmin import __version__
from mqadmin.cli import registry
from mqadmin.cli.command import APPS, COMMANDS, NO_DOCUMENT, SUBCOMMAND_DOCUMENTS
from mqadmin.cli.complete import own_completion_scripts
from mqadmin.cli.declare import Option, Param
from mqadmin.cli.errors import ExitCode, exit_code, usage_error
from mqadmin.cli.options import ROOT_OPTIONS, set_globals, with_global_options


def new_app(**kw: Any) -> typer.Typer:
    """A Typer app with mqadmin's settings (no rich markup, ``-h``, no pretty tracebacks)."""
    return typer.Typer(
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
        **kw,
    )


def examples_epilog(examples: tuple[str, ...]) -> str | None:
    if not examples:
        return None
    return "Examples:\n\n\b\n" + "\n".join(f"  {e}" for e in examples)


def subcommand(
    app: typer.Typer, group: str, name: str, examples: tuple[str, ...], document: Any
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as ``mqadmin GROUP NAME`` on the group's app, with the global options like
    every command, ``examples`` ending its help, and ``document``, the TypedDict of its ``--format json`` output
    (``SUBCOMMAND_DOCUMENTS``); with None its help ends with ``NO_DOCUMENT``."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        SUBCOMMAND_DOCUMENTS[f"{group} {name}"] = document
        text = None if document is not None else f"{inspect.getdoc(fn)}\n\n{NO_DOCUMENT}"
        app.command(name, help=text, epilog=examples_epilog(examples))(typer_callback(with_global_options(fn)))
        return fn

    return register


def typer_callback(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` as Typer reads it: the same parameters, each ``mqadmin.cli.declare`` declaration turned into
    Typer's own (``fn`` itself keeps its signature for the fast parser)."""

    @functools.wraps(fn)
    def callback(**kw: Any) -> Any:
        return fn(**kw)

    sig = inspect.signature(fn, eval_str=True)
    params = [_typer_parameter(p) for p in sig.parameters.values()]
    callback.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]  # read by inspect.signature
    return callback


def _typer_parameter(param: inspect.Parameter) -> inspect.Parameter:
    """``x: Annotated[T, Option(...)] = d`` as ``x: T = typer.Option(d, ...)`` (Typer's older spelling, which
    spares building a new ``Annotated`` for each parameter)."""
    decl = next((m for m in getattr(param.annotation, "__metadata__", ()) if isinstance(m, Param)), None)
    if decl is None:
        return param
    default = ... if param.default is inspect.Parameter.empty else param.default
    return param.replace(annotation=param.annotation.__origin__, default=typer_param(decl, default))


def typer_param(decl: Param, default: Any) -> Any:
    """The ``typer.Option``/``typer.Argument`` a declaration stands for (only the keywords it gives, so Typer
    keeps its own defaults); ``...``: required."""
    keywords = {k: getattr(decl, k) for k in ("help", "metavar", "min", "max", "show_default", "hidden")}
    keywords = {k: v for k, v in keywords.items() if v is not None}
    if isinstance(decl, Option):
        return typer.Option(default, *decl.names, **keywords)
    return typer.Argument(default, **keywords)


class CommandGroup(TyperGroup):
    """Commands from ``registry``: listed from the table, imported on first use, found in any case."""

    def list_commands(self, ctx: Any) -> list[str]:
        return [e.name for e in registry.COMMANDS]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        entry = registry.find(cmd_name)
        if entry is None:
            return super().get_command(ctx, cmd_name)
        return load_command(entry)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        """As click's, but an unknown name gets the nearest command names (case ignored), not click's."""
        name = args[0] if args else ""
        if registry.find(name) is None and not name.startswith("-") and not ctx.resilient_parsing:
            raise registry.no_such_command(name)
        return super().resolve_command(ctx, args)

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
        module = importlib.import_module(f"mqadmin.cli.commands.{entry.module}")
        declared = COMMANDS.get(entry.name)
        if declared is not None:
            sub_app = new_app()
            sub_app.command(entry.name, epilog=examples_epilog(declared.examples))(typer_callback(declared.function))
        elif entry.name in APPS:
            sub_app = APPS[entry.name]
        else:
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


def root(version: bool, **given: Any) -> None:
    set_globals(**given)


_VERSION = inspect.Parameter(
    "version",
    inspect.Parameter.KEYWORD_ONLY,
    annotation=bool,
    default=typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
)
_root_params = [
    inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=a) for n, a in ROOT_OPTIONS
]
root.__signature__ = inspect.Signature([*_root_params[:3], _VERSION, *_root_params[3:]])  # type: ignore[attr-defined]  # read by inspect
app.callback()(typer_callback(root))


own_completion_scripts()


def run(args: list[str] | None) -> int:
    """Run ``mqadmin ARGS`` through Typer; a usage error is raised as a ``CliError``, like a command's own."""
    try:
        result = app(args=args, prog_name="mqadmin", standalone_mode=False)
    except typer.Exit as e:
        return e.exit_code
    except typer.Abort:  # click's answer to Ctrl-C (or end of input) in a command
        return int(ExitCode.INTERRUPTED)
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
        raise usage_error(e.format_message(), f"see: {command} --help") from e
    return exit_code(result)  # click returns typer.Exit's code here


def _click_exceptions() -> type[ClickException]:
    # Typer vendors click (typer._click): find the ClickException its usage errors derive from.
    return next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
